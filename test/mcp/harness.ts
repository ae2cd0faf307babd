import { chmod, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ARUS_BINS, registerTeardown, tmpDir, type TestContextLike } from '@arus/testkit'

export const MCP_BIN = ARUS_BINS.mcp

/** Every tool result text any test saw, with its tool, for the suite's secret scan. */
export const SEEN: Array<{ tool: string; text: string }> = []

export interface McpHandle {
  client: Client
  dir: string
  configPath: string
  auditPath: string
  /** tools/call; the result's text joined (and recorded for the secret scan). */
  call(name: string, args?: Record<string, unknown>): Promise<{ isError: boolean; text: string; structured: any }>
  /** call, then JSON.parse of the text; throws on isError. */
  json(name: string, args?: Record<string, unknown>): Promise<any>
  audit(): Promise<Array<Record<string, unknown>>>
  close(): Promise<void>
}

/** Writes a 0600 config and starts `arus-mcp` over stdio with the official MCP client. */
export async function startMcp (t: TestContextLike | undefined, config: Record<string, unknown>, flags: string[] = []): Promise<McpHandle> {
  const dir = tmpDir(t, 'arus-mcp-')
  const configPath = join(dir, 'mcp.json')
  const auditPath = join(dir, 'audit.jsonl')
  await writeFile(configPath, JSON.stringify({ stateDir: join(dir, 'state'), auditLog: auditPath, ...config }), { mode: 0o600 })
  await chmod(configPath, 0o600)
  const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN, '--config', configPath, ...flags], stderr: 'pipe' })
  const client = new Client({ name: 'arus-test', version: '1' })
  await client.connect(transport)
  const close = registerTeardown(t, async () => { await client.close().catch(() => {}) })
  const call: McpHandle['call'] = async (name, args = {}) => {
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })
    const text = (r.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('\n')
    SEEN.push({ tool: name, text })
    return { isError: r.isError === true, text, structured: r.structuredContent }
  }
  return {
    client,
    dir,
    configPath,
    auditPath,
    call,
    async json (name, args) {
      const r = await call(name, args)
      if (r.isError) throw new Error(`${name}: ${r.text}`)
      return JSON.parse(r.text.includes('<untrusted-data') ? r.text.slice(r.text.indexOf('\n', r.text.indexOf('<untrusted-data')) + 1, r.text.lastIndexOf('</untrusted-data>')) : r.text)
    },
    async audit () {
      const text = await readFile(auditPath, 'utf8').catch(() => '')
      return text.trim() === '' ? [] : text.trim().split('\n').map((l) => JSON.parse(l))
    },
    close
  }
}

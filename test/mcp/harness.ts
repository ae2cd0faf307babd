import { chmod, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ARUS_BINS, registerTeardown, tmpDir, type TestContextLike } from '@arus/testkit'

export const MCP_BIN = ARUS_BINS.mcp

/** Every tool result text this file's tests saw, with its tool, for the secret scan. */
export const SEEN: Array<{ tool: string; text: string }> = []
/** Every audit log this file's tool servers wrote. */
export const AUDITS: string[] = []

/**
 * The secret scan of a test file: every tool result and every audit line it produced, against
 * `secrets`; also proves the scan can fail by planting the first secret. Keys that
 * panel_add_stream generated and returned once (its sanctioned exception) are taken out first.
 */
export async function scanSeen (secrets: ReadonlyArray<{ kind: string; value: string }>, find: (text: string, s: ReadonlyArray<{ kind: string; value: string }>) => Array<{ kind: string }>): Promise<void> {
  const once = SEEN.filter((s) => s.tool === 'panel_add_stream' && !s.text.startsWith('invalid')).map((s) => (JSON.parse(s.text) as { key?: string }).key).filter((k): k is string => typeof k === 'string' && /^[0-9a-f]{64}$/.test(k))
  for (const key of once) {
    const where = SEEN.filter((s) => s.text.includes(key)).map((s) => s.tool)
    if (where.length !== 1 || where[0] !== 'panel_add_stream') throw new Error(`a generated stream key appeared in ${where.join(', ')}`)
  }
  const audits = await Promise.all(AUDITS.map((p) => readFile(p, 'utf8').catch(() => '')))
  const text = [...SEEN.map((s) => once.reduce((t, key) => t.split(key).join('[generated key, returned once]'), s.text)), ...audits].join('\n')
  const leaks = find(text, secrets).map((s) => s.kind)
  if (leaks.length > 0) throw new Error(`secrets in tool results or audit lines: ${leaks.join(', ')}`)
  if (secrets.length > 0 && find(`${text}\n${secrets[0]!.value}`, secrets).length !== 1) throw new Error('the secret scan does not find a planted secret')
}

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
  AUDITS.push(auditPath)
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

import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema, GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema,
  type CallToolResult, type Tool
} from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { PROMPTS } from './prompts.js'
import { hiddenBy, untrustedText, visible, type AuditLog, type Modes, type Planner } from './safety.js'
import { canonicalArgs, ToolFailure, type ToolContext, type ToolDef } from './tool.js'
import { docFiles } from './tools/docs.js'
import { redactSecrets } from './tools/shape.js'

/**
 * The MCP server over the tool definitions: tools/list shows the tools the config and the modes
 * allow; tools/call validates with each tool's strict schema, refuses hidden tools with the
 * mode's reason, runs destructive tools in two steps, redacts, labels untrusted data, audits
 * every call, and turns every failure into an `isError` result with a next step.
 */
export interface ServerDeps { tools: ToolDef[]; ctx: ToolContext; modes: Modes; planner: Planner; audit: AuditLog; version: string }

const CONFIRM = { confirmToken: z.string().max(200).optional().describe('Destructive tool: the token from this tool\'s plan (call without it first)') }

/** The input schema a client sees and the call is checked with (D tools take confirmToken). */
export function callSchema (t: ToolDef): z.ZodObject {
  return t.klass === 'D' ? t.input.extend(CONFIRM) : t.input
}

function jsonSchema (s: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const j = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Record<string, unknown>
  delete j.$schema
  return j
}

export function listing (t: ToolDef): Tool {
  const out = t.output && t.klass !== 'D' ? jsonSchema(t.output, 'output') : undefined
  return {
    name: t.name,
    title: t.title,
    description: t.klass === 'D' ? `${t.description} Destructive: the first call returns a plan and a confirmToken; call again with the same arguments and confirmToken to apply.` : t.description,
    inputSchema: jsonSchema(callSchema(t), 'input') as Tool['inputSchema'],
    ...(out && out.type === 'object' ? { outputSchema: out as Tool['outputSchema'] } : {}),
    annotations: {
      title: t.title,
      readOnlyHint: t.klass === 'R',
      destructiveHint: t.klass === 'D',
      idempotentHint: t.klass === 'R' || t.idempotent === true,
      openWorldHint: t.openWorld === true
    }
  }
}

const fail = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true })

export function buildMcpServer (d: ServerDeps): Server {
  const server = new Server({ name: 'arus-mcp', version: d.version }, { capabilities: { tools: {}, resources: {}, prompts: {} } })
  const byName = new Map(d.tools.map((t) => [t.name, t]))

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: visible(d.tools, d.modes).map(listing) }))

  server.setRequestHandler(CallToolRequestSchema, async (req): Promise<CallToolResult> => {
    const started = Date.now()
    const name = req.params.name
    const raw = req.params.arguments ?? {}
    const t = byName.get(name)
    const audit = (status: 'ok' | 'error' | 'refused' | 'planned', code?: string) =>
      d.audit.write({ ts: new Date().toISOString(), tool: name, backend: t?.service ?? null, args: raw, status, ms: Date.now() - started, ...(code ? { code } : {}) })
    if (!t) { await audit('refused', 'MCP_UNKNOWN_TOOL'); return fail(`unknown tool ${name}: list the tools with tools/list`) }
    const hidden = hiddenBy(t.klass, d.modes)
    if (hidden) { await audit('refused', 'MCP_MODE'); return fail(`${name} refused: ${hidden}`) }
    const parsed = callSchema(t).safeParse(canonicalArgs(t, raw))
    if (!parsed.success) {
      await audit('refused', 'MCP_INVALID_ARGUMENTS')
      const issues = parsed.error.issues.slice(0, 8).map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`)
      return fail(`invalid arguments for ${name}: ${issues.join('; ')}`)
    }
    const { confirmToken, ...args } = parsed.data as Record<string, unknown> & { confirmToken?: string }
    if (t.klass === 'D') {
      if (confirmToken === undefined) {
        const plan = d.planner.issue(name, args)
        await audit('planned')
        const text = JSON.stringify({ plan: t.describe?.(args) ?? `${name} with these arguments`, confirmToken: plan.token, expiresAt: new Date(plan.expiresAt).toISOString(), next: `nothing has changed yet: to apply, call ${name} again with the same arguments and confirmToken` }, null, 2)
        return { content: [{ type: 'text', text }] }
      }
      const refused = d.planner.redeem(name, args, confirmToken)
      if (refused) { await audit('refused', 'MCP_PLAN_TOKEN'); return fail(`${name} not applied: ${refused}`) }
    }
    try {
      const out = await t.run(d.ctx, args)
      const data = redactSecrets(out.data) as Record<string, unknown>
      const json = JSON.stringify(data, null, 2)
      await audit('ok')
      return {
        content: [{ type: 'text', text: out.untrusted ? untrustedText(name, json) : json }],
        ...(t.output && t.klass !== 'D' ? { structuredContent: data } : {})
      }
    } catch (err) {
      const f = err instanceof ToolFailure ? err : new ToolFailure(`${name} failed: ${(err as Error).message}`, 'MCP_INTERNAL')
      await audit('error', f.code)
      return fail(f.message)
    }
  })

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [
      { uri: 'mcp://svc/guide', name: 'guide', title: 'Arus operator guide for the tool server', mimeType: 'text/markdown' },
      ...(await docFiles(d.ctx.docsDir)).map((p) => ({ uri: `mcp://svc/docs/${p}`, name: p, mimeType: 'text/markdown' }))
    ]
  }))

  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const uri = req.params.uri
    let path: string
    if (uri === 'mcp://svc/guide') path = 'mcp.md'
    else if (uri.startsWith('mcp://svc/docs/')) path = decodeURIComponent(uri.slice('mcp://svc/docs/'.length))
    else throw new Error(`unknown resource ${uri}`)
    // Only files the listing names: no path ever leaves docsDir.
    if (!(await docFiles(d.ctx.docsDir)).includes(path)) throw new Error(`unknown resource ${uri}`)
    return { contents: [{ uri, mimeType: 'text/markdown', text: await readFile(join(d.ctx.docsDir, path), 'utf8') }] }
  })

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: PROMPTS.map((p) => ({ name: p.name, description: p.description, ...(p.args ? { arguments: p.args } : {}) }))
  }))

  server.setRequestHandler(GetPromptRequestSchema, async (req) => {
    const p = PROMPTS.find((x) => x.name === req.params.name)
    if (!p) throw new Error(`unknown prompt ${req.params.name}`)
    const args = Object.fromEntries(Object.entries(req.params.arguments ?? {}).map(([k, v]) => [k, String(v).slice(0, 500)]))
    return { description: p.description, messages: [{ role: 'user', content: { type: 'text', text: p.text(args) } }] }
  })

  return server
}

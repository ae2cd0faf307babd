import { z } from 'zod'
import type { Backend } from './backend.js'
import { BackendError } from './backend.js'
import type { McpConfig, Service } from './config.js'
import { routeAliases, routeInput, routeRequest, type RouteTables } from './routes.js'

/**
 * A tool: its name and class (R read-only, W additive write, D destructive — spec 2's table),
 * one strict zod input schema, an optional output schema (list/get tools: structuredContent),
 * and what it does. Most tools are a daemon route (see {@link routeTool}).
 */
export type ToolClass = 'R' | 'W' | 'D'

export interface ToolContext {
  config: McpConfig
  backends: Partial<Record<Service, Backend>>
  stateDir: string
  docsDir: string
}

export interface ToolOutput {
  /** The JSON result (structuredContent when the tool has an output schema; mirrored as text). */
  data: Record<string, unknown>
  /** Third-party strings inside (source names, report text): the text is delimited as untrusted data. */
  untrusted?: boolean
}

export interface ToolDef {
  name: string
  group: string
  klass: ToolClass
  title: string
  description: string
  input: z.ZodObject
  output?: z.ZodType
  /** The backend it needs (registered only when configured). */
  service?: Service
  idempotent?: boolean
  /** Reaches beyond the operator's own services (a remote feed, a messenger, an upstream). */
  openWorld?: boolean
  run(ctx: ToolContext, args: Record<string, unknown>): Promise<ToolOutput>
  /** D tools: what the call would do, shown with the plan token. */
  describe?(args: Record<string, unknown>): string
  /**
   * Older argument names still accepted (`{u: 'username'}`): a call that uses one instead of its
   * canonical name is read as if it used the canonical one. Never listed in the input schema.
   */
  aliases?: Readonly<Record<string, string>>
}

/** `args` with each alias of `t` renamed to its canonical name (unless the call also gives that name: then the strict schema refuses the alias). */
export function canonicalArgs (t: Pick<ToolDef, 'aliases'>, args: Record<string, unknown>): Record<string, unknown> {
  if (t.aliases === undefined) return args
  const out = { ...args }
  for (const [old, name] of Object.entries(t.aliases)) {
    if (!Object.hasOwn(out, old) || Object.hasOwn(out, name)) continue
    out[name] = out[old]
    delete out[old]
  }
  return out
}

/** A refusal or failure with an actionable next step: becomes `isError: true`, never a protocol error. */
export class ToolFailure extends Error {
  constructor (message: string, readonly code = 'MCP_TOOL_FAILED') { super(message); this.name = 'ToolFailure' }
}

/** Next steps for daemon error codes a model can act on. */
const NEXT: Record<string, string> = {
  BROADCASTER_CHANNEL_RUNNING: 'stop the channel first: call broadcaster_stop_channel',
  BROADCASTER_CHANNEL_STOPPED: 'start the channel first: call broadcaster_start_channel',
  BROADCASTER_NOT_FOUND: 'list the channels with broadcaster_list_channels',
  PANEL_NOT_FOUND: 'check the name with the matching panel_list_* tool (panel_list_users, panel_list_streams, ...)',
  PANEL_EXISTS: 'it exists already: read it with the matching panel_get_* or panel_list_* tool',
  LIBRARY_INGESTING: 'wait until the title is ready (library_get_title), then try again',
  LIBRARY_NOT_FOUND: 'list titles with library_list_titles',
  RESELLER_INSUFFICIENT_CREDITS: 'grant credits first with reseller_grant_credits',
  SERVICE_VALIDATION_FAILED: 'fix the named fields and call again',
  SERVICE_LOCKED: 'too many logins: wait retryAfter seconds'
}

export function failureFrom (service: Service, status: number, body: unknown): ToolFailure {
  const err = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error
  const code = typeof err?.code === 'string' ? err.code : `HTTP_${status}`
  const message = typeof err?.message === 'string' ? err.message : `HTTP ${status}`
  const next = NEXT[code] ?? (status === 404 ? 'check the id with the matching list tool' : status === 403 ? 'the tool server\'s account may not do this' : '')
  return new ToolFailure(`${service} refused (${code}): ${message}${next ? `. Next: ${next}` : ''}`, code)
}

export function backendOf (ctx: ToolContext, service: Service): Backend {
  const b = ctx.backends[service]
  if (!b) throw new ToolFailure(`no ${service} block in the config`)
  return b
}

/** Calls a backend and returns its JSON body, or throws a {@link ToolFailure}. */
export async function callJson (ctx: ToolContext, service: Service, method: string, path: string, body?: unknown): Promise<any> {
  let r
  try {
    r = await backendOf(ctx, service).call(method, path, body === undefined ? {} : { body })
  } catch (err) {
    if (err instanceof BackendError) throw new ToolFailure(err.message, err.code)
    throw err
  }
  if (r.status < 200 || r.status > 299) throw failureFrom(service, r.status, r.body)
  return r.body === '' ? {} : r.body
}

export interface RouteToolSpec {
  name: string
  service: Service
  /** `METHOD /path` in the daemon's route table. */
  route: string
  klass: ToolClass
  title: string
  description?: string
  idempotent?: boolean
  openWorld?: boolean
  untrusted?: boolean
  /** Extra input fields the tool handles itself (not sent). */
  extra?: Record<string, z.ZodType>
  /** Shapes the daemon's answer (summaries, redaction); default: as is. */
  transform?: (data: any, args: Record<string, unknown>) => Record<string, unknown>
  /** Output schema: default the route's reply schema for R tools (unless transformed). */
  output?: z.ZodType | null
}

export function routeTool (tables: RouteTables, s: RouteToolSpec): ToolDef {
  const route = tables[s.service].get(s.route)
  if (!route) throw new Error(`${s.name}: no route ${s.route} in the ${s.service}'s table`)
  const { schema, split } = routeInput(route, s.extra)
  const output = s.output === null ? undefined : s.output ?? (s.klass === 'R' && s.transform === undefined ? route.response : undefined)
  return {
    name: s.name,
    group: s.service,
    klass: s.klass,
    title: s.title,
    description: `${s.description ?? route.summary}. (${route.method} ${route.url} on the ${s.service})`,
    input: schema,
    ...(output !== undefined ? { output } : {}),
    service: s.service,
    ...(s.idempotent !== undefined ? { idempotent: s.idempotent } : {}),
    ...(s.openWorld !== undefined ? { openWorld: s.openWorld } : {}),
    async run (ctx, args) {
      const req = routeRequest(route, split, args)
      const data = await callJson(ctx, s.service, route.method, req.path, req.body)
      const shaped = s.transform ? s.transform(data, args) : data
      return { data: typeof shaped === 'object' && shaped !== null && !Array.isArray(shaped) ? shaped : { result: shaped }, ...(s.untrusted ? { untrusted: true } : {}) }
    },
    describe: (args) => `${route.method} ${routeRequest(route, split, args).path} on the ${s.service}: ${route.summary}`,
    aliases: routeAliases(split)
  }
}

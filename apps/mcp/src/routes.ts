import { z } from 'zod'
import type { RouteInfo } from '@arus/service'
import type { Service } from './config.js'

/**
 * The daemons' own route tables (each daemon's `DaemonReference.routes()`, the source of its
 * OpenAPI document and docs): a tool mapped onto a route takes that route's params, query and
 * body schemas as its input, so a tool can never drift from the operation it calls.
 */
export type RouteTables = Record<Service, Map<string, RouteInfo>>

export async function loadRouteTables (): Promise<RouteTables> {
  const [panel, broadcaster, library, reseller] = await Promise.all([
    import('@arus/panel/reference').then((m) => m.panelReference.routes()),
    import('@arus/broadcaster/reference').then((m) => m.broadcasterReference.routes()),
    import('@arus/library/reference').then((m) => m.libraryReference.routes()),
    import('@arus/reseller/reference').then((m) => m.resellerReference.routes())
  ])
  const table = (routes: readonly RouteInfo[]) => new Map(routes.map((r) => [`${r.method} ${r.url}`, r]))
  return { panel: table(panel), broadcaster: table(broadcaster), library: table(library), reseller: table(reseller) }
}

/** An object schema's shape, seen through optional/refined wrappers; null for anything else. */
function shapeOf (schema: z.ZodType | undefined): Record<string, z.ZodType> | null {
  let s: unknown = schema
  for (let i = 0; i < 4 && s !== undefined; i++) {
    if (s instanceof z.ZodObject) return s.shape as Record<string, z.ZodType>
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap()
    else break
  }
  return null
}

/**
 * One name per concept across every tool's input (issue 44 item 12): a route names its path
 * parameter after its own URL (`/api/users/:u`, `/api/streams/:id`, `/api/accounts/:acct`),
 * a tool argument after what it is. The record a path segment or a creation names gets the
 * name below; any other field keeps the route's name.
 */
export const CANONICAL_ARG: Readonly<Record<string, string>> = Object.freeze({
  users: 'username',
  streams: 'streamId',
  grants: 'streamId',
  devices: 'deviceId',
  packages: 'package',
  sources: 'source',
  publishers: 'publisher',
  admins: 'admin',
  reports: 'reportId',
  channels: 'channelId',
  titles: 'titleId',
  accounts: 'account',
  principals: 'principal'
})

/** The fields that name the record a creation (`POST /api/<collection>`) makes. */
const CREATION_ID_FIELDS = new Set(['id', 'name', 'username'])

/** The tool argument of a route field: a path parameter by the segment before it, a creation's id field by its collection. */
export function canonicalArg (route: Pick<RouteInfo, 'method' | 'url'>, where: 'params' | 'query' | 'body', field: string): string {
  const segments = route.url.split('/')
  if (where === 'params') {
    const at = segments.indexOf(`:${field}`)
    return CANONICAL_ARG[segments[at - 1] ?? ''] ?? field
  }
  const creation = route.method === 'POST' && segments.length === 3 && segments[1] === 'api'
  if (where === 'body' && creation && CREATION_ID_FIELDS.has(field)) return CANONICAL_ARG[segments[2]!] ?? field
  return field
}

/** One input field of a route tool: its argument name and the route field it fills. */
export interface RouteField { arg: string; field: string }

/** Where each input field of a route tool goes. */
export interface RouteSplit { params: RouteField[]; query: RouteField[]; body: RouteField[]; bodyOptional: boolean }

/**
 * The tool input of a route: params, query and body fields side by side in one strict object
 * (no extra keys: a stringified object or a typo is refused, never forwarded), each under its
 * canonical argument name ({@link canonicalArg}).
 */
export function routeInput (route: RouteInfo, extra: Record<string, z.ZodType> = {}): { schema: z.ZodObject; split: RouteSplit } {
  const params = shapeOf(route.params) ?? {}
  const query = shapeOf(route.query) ?? {}
  const body = shapeOf(route.body) ?? {}
  if (route.body !== undefined && shapeOf(route.body) === null) throw new Error(`route ${route.method} ${route.url}: a non-object body cannot be a tool input`)
  const bodyOptional = route.body instanceof z.ZodOptional
  const named = (where: 'params' | 'query' | 'body', shape: Record<string, z.ZodType>, optional = false) =>
    Object.entries(shape).map(([field, schema]) => ({ arg: canonicalArg(route, where, field), field, schema: optional ? schema.optional() : schema }))
  const fields = [...named('params', params), ...named('query', query), ...named('body', body, bodyOptional)]
  const args = fields.map((f) => f.arg)
  const clash = args.find((a, i) => args.indexOf(a) !== i || (a in extra))
  if (clash !== undefined) throw new Error(`route ${route.method} ${route.url}: two inputs named ${clash}`)
  const schema = z.strictObject({ ...Object.fromEntries(fields.map((f) => [f.arg, f.schema])), ...extra })
  const pick = (shape: Record<string, z.ZodType>, where: 'params' | 'query' | 'body') => Object.keys(shape).map((field) => ({ arg: canonicalArg(route, where, field), field }))
  return { schema, split: { params: pick(params, 'params'), query: pick(query, 'query'), body: pick(body, 'body'), bodyOptional } }
}

/** The route's own names of the arguments that differ from them (`{u: 'username'}`): the old names a call may still use. */
export function routeAliases (split: RouteSplit): Record<string, string> {
  return Object.fromEntries([...split.params, ...split.query, ...split.body].filter((f) => f.arg !== f.field).map((f) => [f.field, f.arg]))
}

/** Fills the path and query of a route from validated input; the rest is the JSON body. */
export function routeRequest (route: RouteInfo, split: RouteSplit, input: Record<string, unknown>): { path: string; body: unknown } {
  let path = route.url
  for (const { arg, field } of split.params) path = path.replace(`:${field}`, encodeURIComponent(String(input[arg])))
  const q = new URLSearchParams()
  for (const { arg, field } of split.query) if (input[arg] !== undefined) q.set(field, String(input[arg]))
  const qs = q.toString()
  const body: Record<string, unknown> = {}
  for (const { arg, field } of split.body) if (input[arg] !== undefined) body[field] = input[arg]
  const hasBody = route.body !== undefined && !(split.bodyOptional && Object.keys(body).length === 0)
  return { path: qs === '' ? path : `${path}?${qs}`, body: hasBody ? body : undefined }
}

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

/** Where each input field of a route tool goes. */
export interface RouteSplit { params: string[]; query: string[]; body: string[]; bodyOptional: boolean }

/**
 * The tool input of a route: params, query and body fields side by side in one strict object
 * (no extra keys: a stringified object or a typo is refused, never forwarded).
 */
export function routeInput (route: RouteInfo, extra: Record<string, z.ZodType> = {}): { schema: z.ZodObject; split: RouteSplit } {
  const params = shapeOf(route.params) ?? {}
  const query = shapeOf(route.query) ?? {}
  const body = shapeOf(route.body) ?? {}
  if (route.body !== undefined && shapeOf(route.body) === null) throw new Error(`route ${route.method} ${route.url}: a non-object body cannot be a tool input`)
  const bodyOptional = route.body instanceof z.ZodOptional
  const bodyShape = bodyOptional ? Object.fromEntries(Object.entries(body).map(([k, v]) => [k, v.optional()])) : body
  const schema = z.strictObject({ ...params, ...query, ...bodyShape, ...extra })
  return { schema, split: { params: Object.keys(params), query: Object.keys(query), body: Object.keys(body), bodyOptional } }
}

/** Fills the path and query of a route from validated input; the rest is the JSON body. */
export function routeRequest (route: RouteInfo, split: RouteSplit, input: Record<string, unknown>): { path: string; body: unknown } {
  let path = route.url
  for (const k of split.params) path = path.replace(`:${k}`, encodeURIComponent(String(input[k])))
  const q = new URLSearchParams()
  for (const k of split.query) if (input[k] !== undefined) q.set(k, String(input[k]))
  const qs = q.toString()
  const body: Record<string, unknown> = {}
  for (const k of split.body) if (input[k] !== undefined) body[k] = input[k]
  const hasBody = route.body !== undefined && !(split.bodyOptional && Object.keys(body).length === 0)
  return { path: qs === '' ? path : `${path}?${qs}`, body: hasBody ? body : undefined }
}

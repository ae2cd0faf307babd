import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { z } from 'zod'
import { withActor } from '../admin/activity.js'
import { ServiceError } from '../errors.js'
import { requestAdmin } from './auth.js'

/**
 * The zod route helper: one schema per request part gives runtime validation, the handler's
 * types and the route's OpenAPI entry (STYLE 5). Every route declared through it lands in a
 * per-app route table, which the OpenAPI document, the docs check and the auth-refusal tests
 * are generated from.
 */

export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** A raw (non-JSON) request body, e.g. an image upload. */
export interface RawBodySpec {
  /** Accepted media types; a trailing `/*` accepts a whole family (`image/*`). */
  contentTypes: string[]
  /** Largest body accepted, in bytes (larger: 413). */
  maxBytes: number
}

type Schema = z.ZodType | undefined

/** Declaration of one route. */
export interface RouteSpec<B extends Schema = undefined, Q extends Schema = undefined, P extends Schema = undefined, R extends Schema = undefined> {
  method: RouteMethod
  /** Fastify path syntax (`/api/users/:u`). */
  url: string
  /** One line for the OpenAPI document and docs. */
  summary: string
  description?: string
  /** OpenAPI tag (group), e.g. 'users'. */
  tag?: string
  /** true: the auth gate requires an admin bearer token. */
  auth: boolean
  /** JSON body schema. */
  body?: B
  /** Raw body instead of JSON (mutually exclusive with `body`). */
  rawBody?: RawBodySpec
  query?: Q
  params?: P
  /** JSON response schema: the handler's result is parsed with it (unknown keys are stripped). */
  response?: R
  /** Success status (default 200; 201 for creations). */
  status?: number
  /** Media type of a non-JSON success body (e.g. 'image/*', 'text/plain'). */
  produces?: string
}

/** A route as recorded in the table (its spec without the handler). */
export type RouteInfo = RouteSpec<Schema, Schema, Schema, Schema>

type Out<S> = S extends z.ZodType ? z.output<S> : undefined
type In<S> = S extends z.ZodType ? z.input<S> : unknown

/** What a handler receives: the parsed parts, and the raw body for `rawBody` routes. */
export interface RouteInput<B extends Schema, Q extends Schema, P extends Schema> {
  body: Out<B>
  query: Out<Q>
  params: Out<P>
  raw: Buffer | undefined
}

/**
 * A handler resolves to the JSON result (checked against `response`), raw bytes (sent as is;
 * set the content type on `reply`), or undefined (no body: 204 unless `status` says otherwise).
 */
export type RouteHandler<B extends Schema, Q extends Schema, P extends Schema, R extends Schema> =
  (input: RouteInput<B, Q, P>, req: FastifyRequest, reply: FastifyReply) => Promise<In<R> | Uint8Array | undefined>

const TABLES = new WeakMap<FastifyInstance, RouteInfo[]>()
const RAW_PARSERS = new WeakMap<FastifyInstance, Set<string>>()

/** Every route declared on `app` through {@link route}, in declaration order. */
export function routeTable (app: FastifyInstance): readonly RouteInfo[] {
  return TABLES.get(app) ?? []
}

function mediaType (header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase()
}

function acceptsMedia (accepted: readonly string[], type: string): boolean {
  return accepted.some((a) => a.endsWith('/*') ? type.startsWith(a.slice(0, -1)) && type.length > a.length - 1 : a === type)
}

function ensureRawParser (app: FastifyInstance, types: readonly string[]): void {
  const done = RAW_PARSERS.get(app) ?? new Set<string>()
  RAW_PARSERS.set(app, done)
  for (const t of types) {
    if (done.has(t)) continue
    done.add(t)
    const matcher = t.endsWith('/*') ? new RegExp(`^${t.slice(0, -2).replace(/[.+]/g, '\\$&')}/[^;\\s]+`, 'i') : t
    app.addContentTypeParser(matcher, { parseAs: 'buffer' }, (_req, body, done) => { done(null, body) })
  }
}

/** Validation failure → SERVICE_VALIDATION_FAILED naming each field (never its value). */
function invalid (where: string, error: z.ZodError, what = 'request'): ServiceError {
  const fields: string[] = []
  const parts = error.issues.slice(0, 10).map((issue) => {
    const field = [where, ...issue.path.map(String)].filter(Boolean).join('.') || where
    fields.push(field)
    return `${field}: ${issue.message}`
  })
  return ServiceError.validationFailed(`invalid ${what}: ${parts.join('; ')}`, fields)
}

/**
 * An operation's input checked with its schema outside HTTP (CLI options, tool arguments):
 * the same SERVICE_VALIDATION_FAILED as a route, naming the fields, never their values.
 */
export function parseInput<S extends z.ZodType> (schema: S, value: unknown, where = 'input'): z.output<S> {
  const r = schema.safeParse(value)
  if (!r.success) throw invalid(where, r.error, where)
  return r.data
}

function parsePart<S extends Schema> (schema: S, value: unknown, where: string): Out<S> {
  if (schema === undefined) return undefined as Out<S>
  const r = schema.safeParse(value)
  if (!r.success) throw invalid(where, r.error)
  return r.data as Out<S>
}

/** Declares a route on `app` (before `ready()`), validating with zod and recording it in the table. */
export function route<B extends Schema = undefined, Q extends Schema = undefined, P extends Schema = undefined, R extends Schema = undefined> (
  app: FastifyInstance,
  spec: RouteSpec<B, Q, P, R>,
  handler: RouteHandler<B, Q, P, R>
): void {
  if (spec.body !== undefined && spec.rawBody !== undefined) throw ServiceError.invalidArgument(`route ${spec.method} ${spec.url}: body and rawBody are exclusive`)
  const table = TABLES.get(app) ?? []
  TABLES.set(app, table)
  if (table.some((r) => r.method === spec.method && r.url === spec.url)) throw ServiceError.invalidArgument(`route ${spec.method} ${spec.url} declared twice`)
  table.push(spec as RouteInfo)
  if (spec.rawBody) ensureRawParser(app, spec.rawBody.contentTypes)
  const status = spec.status ?? 200

  app.route({
    method: spec.method,
    url: spec.url,
    config: { auth: spec.auth },
    ...(spec.rawBody ? { bodyLimit: spec.rawBody.maxBytes } : {}),
    handler: async (req, reply) => {
      const params = parsePart(spec.params, req.params ?? {}, 'params')
      const query = parsePart(spec.query, req.query ?? {}, 'query')
      let raw: Buffer | undefined
      if (spec.rawBody) {
        const type = mediaType(req.headers['content-type'])
        if (!acceptsMedia(spec.rawBody.contentTypes, type) || !Buffer.isBuffer(req.body)) {
          throw ServiceError.unsupportedMediaType(`content type must be one of ${spec.rawBody.contentTypes.join(', ')}`)
        }
        raw = req.body
      }
      const body = parsePart(spec.body, req.body, 'body')
      // Run as the authenticated admin, so the activity entries the operations record name who did it.
      const result = await withActor(requestAdmin(req)?.name, () => handler({ body, query, params, raw } as RouteInput<B, Q, P>, req, reply))
      if (reply.sent) return reply
      if (result === undefined) return reply.code(status === 200 ? 204 : status).send()
      if (result instanceof Uint8Array) return reply.code(status).send(Buffer.from(result.buffer, result.byteOffset, result.byteLength))
      if (spec.response === undefined) return reply.code(status).send(result)
      const checked = spec.response.safeParse(result)
      if (!checked.success) {
        req.log.error({ route: `${spec.method} ${spec.url}`, issues: checked.error.issues.map((i) => ({ path: i.path.map(String).join('.'), code: i.code })) }, 'response failed its schema')
        throw ServiceError.internal('the response failed its schema')
      }
      return reply.code(status).send(checked.data)
    }
  })
}

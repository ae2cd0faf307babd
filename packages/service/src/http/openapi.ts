import { z } from 'zod'
import type { RouteInfo } from './routes.js'

/**
 * OpenAPI 3.0 document of a route table, built from the same zod schemas that validate
 * requests (`z.toJSONSchema`, target openapi-3.0). Inputs are described as accepted
 * (`io: 'input'`), responses as sent (`io: 'output'`).
 */

/** Title and version of the document. */
export interface OpenApiInfo {
  title: string
  version: string
  description?: string
}

type JsonSchema = Record<string, unknown>

/** The document's shape, loosely typed (it is served as JSON). */
export interface OpenApiDocument {
  openapi: '3.0.3'
  info: OpenApiInfo
  paths: Record<string, Record<string, unknown>>
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> }
}

const ERROR_REF = { $ref: '#/components/schemas/Error' }

function jsonSchema (schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const out = z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as JsonSchema
  delete out.$schema
  return out
}

/** `/api/users/:u` → `/api/users/{u}`. */
export function openApiPath (url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
}

function parameters (route: RouteInfo): unknown[] {
  const out: unknown[] = []
  const add = (schema: z.ZodType | undefined, where: 'path' | 'query') => {
    if (schema === undefined) return
    const js = jsonSchema(schema, 'input')
    const props = (js.properties ?? {}) as Record<string, JsonSchema>
    const required = new Set((js.required ?? []) as string[])
    for (const [name, s] of Object.entries(props)) {
      out.push({ name, in: where, required: where === 'path' || required.has(name), schema: s, ...(typeof s.description === 'string' ? { description: s.description } : {}) })
    }
  }
  add(route.params, 'path')
  add(route.query, 'query')
  return out
}

function requestBody (route: RouteInfo): unknown {
  if (route.rawBody) {
    const content: Record<string, unknown> = {}
    for (const t of route.rawBody.contentTypes) content[t] = { schema: { type: 'string', format: 'binary', maxLength: route.rawBody.maxBytes } }
    return { required: true, content }
  }
  if (route.body) return { required: true, content: { 'application/json': { schema: jsonSchema(route.body, 'input') } } }
  return undefined
}

function responses (route: RouteInfo): Record<string, unknown> {
  const status = String(route.status ?? 200)
  const ok = route.produces !== undefined
    ? { description: 'OK', content: { [route.produces]: { schema: { type: 'string', format: 'binary' } } } }
    : route.response !== undefined
      ? { description: 'OK', content: { 'application/json': { schema: jsonSchema(route.response, 'output') } } }
      : { description: 'OK (no body)' }
  const error = (description: string) => ({ description, content: { 'application/json': { schema: ERROR_REF } } })
  const out: Record<string, unknown> = { [status]: ok, 400: error('Validation failed or the request was refused') }
  if (route.auth) {
    out[401] = error('Missing, invalid or ended admin session')
    out[403] = error('Token is not an admin token')
  }
  out.default = error('Error envelope')
  return out
}

/** The OpenAPI 3.0 document of `routes`. Authenticated routes carry the `bearer` security requirement. */
export function buildOpenApi (routes: readonly RouteInfo[], info: OpenApiInfo): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {}
  for (const route of routes) {
    const path = openApiPath(route.url)
    const op: Record<string, unknown> = {
      summary: route.summary,
      ...(route.description !== undefined ? { description: route.description } : {}),
      ...(route.tag !== undefined ? { tags: [route.tag] } : {}),
      operationId: `${route.method.toLowerCase()}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      security: route.auth ? [{ bearer: [] }] : [],
      responses: responses(route)
    }
    const params = parameters(route)
    if (params.length > 0) op.parameters = params
    const body = requestBody(route)
    if (body !== undefined) op.requestBody = body
    paths[path] ??= {}
    paths[path][route.method.toLowerCase()] = op
  }
  return {
    openapi: '3.0.3',
    info,
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Admin session token from POST /api/login' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
            retryAfter: { type: 'integer', description: 'Seconds to wait (429 only)' }
          }
        }
      }
    }
  }
}

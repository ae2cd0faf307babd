/**
 * The inputs of {@link fuzzRoutes}: hostile path segments and bodies, and plausible values
 * made from a route's own JSON schema (its OpenAPI entry) so that a hostile path parameter
 * travels with a body that passes validation and reaches the handler's lookup.
 */

/** A JSON schema node as the daemons' OpenAPI documents carry it (zod's openapi-3.0 output). */
export interface JsonSchema {
  type?: string | string[]
  enum?: unknown[]
  const?: unknown
  default?: unknown
  nullable?: boolean
  format?: string
  pattern?: string
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number | boolean
  exclusiveMaximum?: number | boolean
  minItems?: number
  items?: JsonSchema
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean | JsonSchema
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  allOf?: JsonSchema[]
}

/**
 * Path segments sent as they are (already percent-encoded where that is the point): keys of
 * Object.prototype, dot segments, encoded slashes, a NUL and a 5,000-character value.
 */
export const HOSTILE_SEGMENTS: readonly string[] = [
  '__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', '..', '%2E%2E', 'a%2Fb', '%2F', 'x'.repeat(5000), '%00'
]

/** A hostile request body: the raw text sent with `content-type: application/json`. */
export interface HostileBody { name: string; text: string }

function nested (depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
}

/** Bodies every route gets; {@link wrongTypedBody} adds one per route from its schema. */
export const HOSTILE_BODIES: readonly HostileBody[] = [
  { name: 'proto-pollution', text: '{"__proto__":{"polluted":1}}' },
  { name: 'constructor-prototype', text: '{"constructor":{"prototype":{"x":1}}}' },
  { name: 'empty-array', text: '[]' },
  { name: 'array', text: '[{"__proto__":{"polluted":1}},1,"x",null]' },
  { name: 'bare-string', text: '"x"' },
  { name: 'null', text: 'null' },
  { name: 'deeply-nested', text: nested(10_000) },
  { name: 'not-json', text: 'this is { not json' }
]

/** A value of the wrong JSON type for `schema`. */
function wrongValue (schema: JsonSchema): unknown {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  switch (type) {
    case 'string': return 12345
    case 'number': case 'integer': return 'not-a-number'
    case 'boolean': return 'true'
    case 'array': return { '0': 'x' }
    case 'object': return ['x']
    default: return { __wrong__: [true] }
  }
}

/** Every declared property with a value of the wrong type (null for a schema without properties). */
export function wrongTypedBody (schema: JsonSchema | undefined): HostileBody | null {
  const props = objectSchema(schema)?.properties
  if (props === undefined || Object.keys(props).length === 0) return null
  return { name: 'wrong-types', text: JSON.stringify(Object.fromEntries(Object.entries(props).map(([k, s]) => [k, wrongValue(s)]))) }
}

function objectSchema (schema: JsonSchema | undefined): JsonSchema | undefined {
  if (schema === undefined) return undefined
  if (schema.properties !== undefined) return schema
  for (const s of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) {
    const o = objectSchema(s)
    if (o !== undefined) return o
  }
  return undefined
}

/** Strings tried, in order, for a string schema; the property name picks which come first. */
const STRINGS = [
  'fuzz', 'fuzz-name', 'f', 'Fuzz', 'fuzz-0', '0', '1',
  'https://example.invalid/fuzz.m3u8', '/nonexistent/fuzz.mp4', 'fuzz@example.invalid', '#000000',
  '0'.repeat(64), '0'.repeat(128), 'ab'.repeat(16), 'fuzz-password-0123456789', 'FUZZ_NAME'
]

function stringHints (name: string): string[] {
  if (/url|uri|href/i.test(name)) return ['https://example.invalid/fuzz.m3u8']
  if (/input|path|file/i.test(name)) return ['/nonexistent/fuzz.mp4', 'test']
  if (/pass/i.test(name)) return ['fuzz-password-0123456789']
  if (/key|pub|hash|salt/i.test(name)) return ['0'.repeat(64)]
  if (/colou?r|accent/i.test(name)) return ['#000000']
  return []
}

function patternOf (source: string): RegExp | null {
  try { return new RegExp(source, 'u') } catch { /* not a valid unicode pattern: try it plain */ }
  try { return new RegExp(source) } catch { return null }
}

function plausibleString (schema: JsonSchema, name: string): string | undefined {
  const min = schema.minLength ?? 0
  const max = schema.maxLength ?? Infinity
  const re = schema.pattern !== undefined ? patternOf(schema.pattern) : null
  if (schema.pattern !== undefined && re === null) return undefined
  const fits = (s: string) => s.length >= min && s.length <= max && (re === null || re.test(s))
  if (schema.format === 'uri' || schema.format === 'url') return ['https://example.invalid/fuzz.m3u8'].find(fits)
  for (const s of [...stringHints(name), ...STRINGS]) if (fits(s)) return s
  const padded = 'f'.repeat(Math.max(1, min))
  return fits(padded) ? padded : undefined
}

function plausibleNumber (schema: JsonSchema, integer: boolean): number {
  const lo = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : schema.minimum
  const hi = typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - 1 : schema.maximum
  let n = lo ?? Math.min(1, hi ?? 1)
  if (integer) n = Math.ceil(n)
  return n
}

/**
 * A value that passes `schema` as far as a JSON schema can tell (refinements are invisible
 * to it), or undefined when none can be made. `full` also fills optional properties.
 */
export function plausibleValue (schema: JsonSchema | undefined, mode: 'required' | 'full', name = ''): unknown {
  if (schema === undefined) return undefined
  if (schema.const !== undefined) return schema.const
  if (schema.enum !== undefined) return schema.enum.find((v) => v !== null)
  if (schema.default !== undefined && mode === 'required') return schema.default
  for (const alt of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
    const v = plausibleValue(alt, mode, name)
    if (v !== undefined) return v
  }
  if (schema.allOf !== undefined && schema.allOf.length > 0) return plausibleValue(schema.allOf[0], mode, name)
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type
  switch (type) {
    case 'string': return plausibleString(schema, name)
    case 'integer': return plausibleNumber(schema, true)
    case 'number': return plausibleNumber(schema, false)
    case 'boolean': return false
    case 'null': return null
    case 'array': {
      if ((schema.minItems ?? 0) === 0) return []
      const item = plausibleValue(schema.items, mode, name)
      return item === undefined ? undefined : Array.from({ length: schema.minItems! }, () => item)
    }
    case 'object': case undefined: {
      if (schema.properties === undefined) return type === 'object' ? {} : undefined
      const required = new Set(schema.required ?? [])
      const out: Record<string, unknown> = {}
      for (const [k, s] of Object.entries(schema.properties)) {
        if (!required.has(k) && mode === 'required') continue
        const v = plausibleValue(s, mode, k)
        if (v === undefined) {
          if (required.has(k)) return undefined
          continue
        }
        out[k] = v
      }
      return out
    }
    default: return undefined
  }
}

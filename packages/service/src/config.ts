/**
 * Environment configuration: parsed once at boot against a zod object schema,
 * deep-frozen, and documented from the same schema.
 */
import { z } from 'zod'
import { ServiceError } from './errors.js'
import { ENV_ISSUE, envFieldRegistry } from './env.js'

/** The raw environment: `process.env` or a test's plain object. */
export type Env = Record<string, string | undefined>

/** A recursively read-only view of a frozen value. */
export type DeepReadonly<T> =
  T extends (...args: any[]) => unknown ? T
    : T extends Uint8Array ? T
      : T extends ReadonlyArray<infer U> ? ReadonlyArray<DeepReadonly<U>>
        : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
          : T

/** The result of `loadConfig`: the schema's output, deep-frozen. */
export type FrozenConfig<S extends z.ZodObject> = DeepReadonly<z.output<S>>

/** Variables whose value is never echoed in errors. */
export const SECRET_NAME = /KEY|SECRET|PASS|TOKEN|WEBHOOK/i

const MAX_ECHO = 80

/** One row of a generated configuration table. */
export interface ConfigDoc {
  /** The variable name. */
  name: string
  /** The default as written in the environment; undefined when there is none. */
  default: string | undefined
  /** The schema's `.describe()` text ('' when none). */
  description: string
  /** Human type, e.g. 'integer >= 1' (the zod type name for plain zod fields). */
  type: string
  /** True when boot fails without it. */
  required: boolean
  /** True when the name marks a secret (its value is never echoed). */
  secret: boolean
}

/** A bad variable and why, as listed in a `SERVICE_INVALID_CONFIG` error's `details.variables`. */
export interface ConfigProblem {
  name: string
  reason: string
}

/**
 * Parses `env` against `schema` once and returns the deep-frozen result.
 * Unknown variables are ignored. On failure throws `SERVICE_INVALID_CONFIG`
 * naming every bad variable and why, echoing values except for secrets.
 */
export function loadConfig<S extends z.ZodObject> (schema: S, env: Env = process.env): FrozenConfig<S> {
  const names = Object.keys(schema.shape)
  const input: Env = {}
  for (const name of names) input[name] = env[name]
  const result = schema.strip().safeParse(input)
  if (!result.success) {
    const problems = describeIssues(result.error.issues, input)
    const text = problems.map((p) => `${p.name} ${p.reason}${echo(p.name, input[p.name], p.reason)}`)
    throw ServiceError.invalidConfig(`invalid environment: ${text.join('; ')}`, {
      variables: problems.map((p) => ({ name: p.name, reason: p.reason }))
    })
  }
  return deepFreeze(result.data) as FrozenConfig<S>
}

function describeIssues (issues: readonly z.core.$ZodIssue[], input: Env): ConfigProblem[] {
  const seen = new Set<string>()
  const problems: ConfigProblem[] = []
  for (const issue of issues) {
    const name = issue.path.length === 0 ? '(environment)' : issue.path.map(String).join('.')
    const ours = issue.code === 'custom' && issue.params?.[ENV_ISSUE] === true
    const missing = issue.path.length > 0 && input[String(issue.path[0])] === undefined
    let reason: string
    if (ours) reason = issue.message
    else if (missing && issue.code === 'invalid_type') reason = 'is required'
    else reason = `is invalid: ${issue.message}`
    const key = `${name}\0${reason}`
    if (seen.has(key)) continue
    seen.add(key)
    problems.push({ name, reason })
  }
  return problems
}

function echo (name: string, value: string | undefined, reason: string): string {
  if (value === undefined || reason === 'is required') return ''
  if (SECRET_NAME.test(name)) return ' (value hidden)'
  const shown = value.length > MAX_ECHO ? `${value.slice(0, MAX_ECHO)}...` : value
  return ` (got ${JSON.stringify(shown)})`
}

/** Freezes plain objects and arrays recursively; other objects are left as they are. */
export function deepFreeze<T> (value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value
  const proto = Object.getPrototypeOf(value)
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return value
  for (const child of Object.values(value)) deepFreeze(child)
  return Object.freeze(value)
}

/**
 * One row per variable of `schema`, in declaration order: description from
 * `.describe()`, default and type from the `env.*` helpers or from plain zod
 * `.default()` / `.optional()` wrappers. Daemons render docs/<daemon>.md from it.
 */
export function configDocs (schema: z.ZodObject): ConfigDoc[] {
  return Object.entries(schema.shape).map(([name, field]) => ({ name, ...describeField(field as z.ZodType), secret: SECRET_NAME.test(name) }))
}

function describeField (field: z.ZodType): Omit<ConfigDoc, 'name' | 'secret'> {
  const meta = envFieldRegistry.get(field)
  if (meta !== undefined) return { ...meta, description: descriptionOf(field) }
  let description = ''
  let defaultValue: string | undefined
  let required = true
  let current: z.core.$ZodType | undefined = field
  // Walk the wrappers of a plain zod field: default/optional/pipe/nullable.
  for (let depth = 0; current !== undefined && depth < 16; depth++) {
    if (description === '') description = descriptionOf(current)
    const def = current._zod.def as { type: string, innerType?: z.core.$ZodType, in?: z.core.$ZodType, defaultValue?: unknown }
    if (def.type === 'default' || def.type === 'prefault') {
      defaultValue = showDefault(def.defaultValue)
      required = false
      current = def.innerType
    } else if (def.type === 'optional') {
      required = false
      current = def.innerType
    } else if (def.type === 'nullable' || def.type === 'readonly' || def.type === 'catch') {
      current = def.innerType
    } else if (def.type === 'pipe') {
      current = def.in
    } else {
      return { description, default: defaultValue, type: def.type, required }
    }
  }
  return { description, default: defaultValue, type: 'unknown', required }
}

function descriptionOf (schema: z.core.$ZodType): string {
  return z.globalRegistry.get(schema)?.description ?? ''
}

function showDefault (value: unknown): string | undefined {
  if (value === undefined) return undefined
  if (Array.isArray(value)) return value.map(String).join(',')
  if (typeof value === 'object' && value !== null) return JSON.stringify(value)
  return String(value)
}

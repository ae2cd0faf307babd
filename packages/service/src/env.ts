/**
 * Schema builders for environment variables. Each helper returns a zod schema
 * that takes the raw `string | undefined` of one variable and outputs a typed
 * value; an empty string counts as unset (Compose passes `FOO=` for blanks).
 * Failures carry a reason phrase ("must be an integer >= 1") that
 * `loadConfig` prefixes with the variable's name.
 */
import { isIP } from 'node:net'
import { z } from 'zod'
import { ServiceError } from './errors.js'

/** A schema for one environment variable: raw string in, typed value out. */
export type EnvSchema<T> = z.ZodType<T, string | undefined>

/** What `configDocs` knows about a variable built with an `env.*` helper. */
export interface EnvFieldMeta {
  /** Human type, e.g. 'integer >= 1', 'boolean', 'one of json, pretty'. */
  type: string
  /** The default as it would be written in the environment; undefined when none. */
  default: string | undefined
  /** True when the variable must be set. */
  required: boolean
}

/** Registry of `env.*` field metadata; `.describe()` clones inherit it. */
export const envFieldRegistry = z.registry<EnvFieldMeta>()

/** Marker in issue params: the message is a reason phrase to print after the name. */
export const ENV_ISSUE = 'arusEnvReason'

type Parsed<T> = { ok: true, value: T } | { ok: false, reason: string }

interface FieldSpec<T> {
  type: string
  parse: (raw: string) => Parsed<T>
  default?: T | undefined
  optional?: boolean | undefined
  show: (value: T) => string
}

function field<T> (spec: FieldSpec<T>): EnvSchema<T> {
  let fallback: T | undefined
  if (spec.default !== undefined) {
    // A default must pass its own rules, or the docs would advertise a value boot rejects.
    const check = spec.parse(spec.show(spec.default))
    if (!check.ok) throw ServiceError.invalidArgument(`env default "${spec.show(spec.default)}" ${check.reason}`)
    fallback = check.value
  }
  const hasDefault = fallback !== undefined
  const schema = z.string().optional().transform((raw, ctx): T => {
    if (raw === undefined || raw === '') {
      if (hasDefault) return fallback as T
      if (spec.optional === true) return undefined as T
      ctx.addIssue({ code: 'custom', message: 'is required', params: { [ENV_ISSUE]: true } })
      return z.NEVER
    }
    const parsed = spec.parse(raw)
    if (parsed.ok) return parsed.value
    ctx.addIssue({ code: 'custom', message: parsed.reason, params: { [ENV_ISSUE]: true } })
    return z.NEVER
  })
  envFieldRegistry.add(schema, {
    type: spec.type,
    default: hasDefault ? spec.show(fallback as T) : undefined,
    required: !hasDefault && spec.optional !== true
  })
  return schema as unknown as EnvSchema<T>
}

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value })
const fail = (reason: string): Parsed<never> => ({ ok: false, reason })

const TRUE = new Set(['1', 'true', 'yes'])
const FALSE = new Set(['0', 'false', 'no'])

function bool (defaultValue?: boolean): EnvSchema<boolean> {
  return field<boolean>({
    type: 'boolean',
    default: defaultValue,
    show: String,
    parse: (raw) => {
      const v = raw.trim().toLowerCase()
      if (TRUE.has(v)) return ok(true)
      if (FALSE.has(v)) return ok(false)
      return fail('must be one of 1, 0, true, false, yes, no')
    }
  })
}

/** Options of `env.int`. */
export interface IntInit { min?: number, max?: number, default?: number }

function intRange (min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return `between ${min} and ${max}`
  if (min !== undefined) return `>= ${min}`
  if (max !== undefined) return `<= ${max}`
  return ''
}

function intParser (min: number | undefined, max: number | undefined, reason: string): (raw: string) => Parsed<number> {
  return (raw) => {
    const v = raw.trim()
    if (!/^[+-]?\d+$/.test(v)) return fail(reason)
    const n = Number(v)
    if (!Number.isSafeInteger(n) || (min !== undefined && n < min) || (max !== undefined && n > max)) return fail(reason)
    return ok(n)
  }
}

function int (init: IntInit = {}): EnvSchema<number> {
  const { min, max } = init
  if (min !== undefined && max !== undefined && min > max) throw ServiceError.invalidArgument('env.int: min > max')
  const type = `integer ${intRange(min, max)}`.trim()
  return field<number>({ type, default: init.default, show: String, parse: intParser(min, max, `must be an ${type}`) })
}

/** Options of `env.str` (lengths in UTF-16 code units). The value is taken verbatim, not trimmed. */
export interface StrInit { default?: string, min?: number, max?: number, optional?: boolean }

function str (init: StrInit & { optional: true }): EnvSchema<string | undefined>
function str (init?: StrInit): EnvSchema<string>
function str (init: StrInit = {}): EnvSchema<string | undefined> {
  const { min, max } = init
  return field<string | undefined>({
    type: 'string',
    default: init.default,
    optional: init.optional,
    show: (v) => v ?? '',
    parse: (raw) => {
      if (min !== undefined && raw.length < min) return fail(`must be at least ${min} characters`)
      if (max !== undefined && raw.length > max) return fail(`must be at most ${max} characters`)
      return ok(raw)
    }
  })
}

function oneOf<const T extends readonly [string, ...string[]]> (values: T, defaultValue?: T[number]): EnvSchema<T[number]> {
  const allowed = new Set<string>(values)
  return field<T[number]>({
    type: `one of ${values.join(', ')}`,
    default: defaultValue,
    show: String,
    parse: (raw) => {
      const v = raw.trim()
      return allowed.has(v) ? ok(v as T[number]) : fail(`must be one of ${values.join(', ')}`)
    }
  })
}

function port (defaultValue?: number): EnvSchema<number> {
  return field<number>({
    type: 'port (0-65535; 0 picks a free port)',
    default: defaultValue,
    show: String,
    parse: intParser(0, 65535, 'must be a port number between 0 and 65535')
  })
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i

function isHostName (v: string): boolean {
  if (v.length > 253) return false
  return v.replace(/\.$/, '').split('.').every((label) => LABEL.test(label))
}

function host (defaultValue?: string): EnvSchema<string> {
  return field<string>({
    type: 'host name or IP address',
    default: defaultValue,
    show: String,
    parse: (raw) => {
      const v = raw.trim()
      return isIP(v) !== 0 || isHostName(v) ? ok(v) : fail('must be a host name or IP address')
    }
  })
}

/** Options of `env.hex`. */
export interface HexInit { bytes: number, optional?: boolean }

function hex (init: HexInit & { optional: true }): EnvSchema<string | undefined>
function hex (init: HexInit): EnvSchema<string>
function hex (init: HexInit): EnvSchema<string | undefined> {
  const { bytes } = init
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw ServiceError.invalidArgument('env.hex: bytes must be a positive integer')
  const pattern = new RegExp(`^[0-9a-f]{${bytes * 2}}$`, 'i')
  return field<string | undefined>({
    type: `hex, ${bytes} bytes`,
    optional: init.optional,
    show: (v) => v ?? '',
    parse: (raw) => {
      const v = raw.trim()
      return pattern.test(v) ? ok(v.toLowerCase()) : fail(`must be ${bytes * 2} hex characters (${bytes} bytes)`)
    }
  })
}

/** Options of `env.list`. */
export interface ListInit { default?: string[] }

function list (init: ListInit = {}): EnvSchema<string[]> {
  return field<string[]>({
    type: 'comma-separated list',
    default: init.default ?? [],
    show: (v) => v.join(','),
    parse: (raw) => ok(raw.split(',').map((s) => s.trim()).filter((s) => s !== ''))
  })
}

/** Options of `env.url`. */
export interface UrlInit { https?: boolean, default?: string, optional?: boolean }

function url (init: UrlInit & { optional: true }): EnvSchema<string | undefined>
function url (init?: UrlInit): EnvSchema<string>
function url (init: UrlInit = {}): EnvSchema<string | undefined> {
  const protocols = init.https === true ? ['https:'] : ['http:', 'https:']
  const reason = init.https === true ? 'must be an https:// URL' : 'must be an http:// or https:// URL'
  return field<string | undefined>({
    type: init.https === true ? 'https URL' : 'http(s) URL',
    default: init.default,
    optional: init.optional,
    show: (v) => v ?? '',
    parse: (raw) => {
      const v = raw.trim()
      if (!URL.canParse(v)) return fail(reason)
      const u = new URL(v)
      return protocols.includes(u.protocol) ? ok(u.href) : fail(reason)
    }
  })
}

/**
 * Builders for environment variable schemas. Compose them in a `z.object`,
 * add `.describe('...')` for the docs, and pass the object to `loadConfig`.
 */
export const env = { bool, int, str, enum: oneOf, port, host, hex, list, url }

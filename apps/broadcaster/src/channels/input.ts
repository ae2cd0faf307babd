import { createHash } from 'node:crypto'
import type { z } from 'zod'
import { BroadcasterError } from '../errors.js'
import { InputSpec, noControl, PULL_SCHEMES, Transcode } from './model.js'

/**
 * Input and transcode parsing (spec 2 "Broadcaster channel"): a shorthand string or a
 * typed object. Objects must be sent as objects; a stringified object is parsed back
 * where possible and refused (BROADCASTER_INVALID_INPUT, HTTP 400) where not — it is
 * never stored as a file path.
 */

const SHORTHAND_KINDS = new Set(['test', 'rtmp', 'srt', 'udp'])
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i

function describe (field: string, error: z.ZodError): string {
  const issue = error.issues[0]
  if (!issue) return `${field} is invalid`
  const at = issue.path.length > 0 ? `${field}.${issue.path.join('.')}` : field
  return `${at}: ${issue.message}`
}

/** A string that looks like JSON text of an object or array: parse it back or refuse it. */
function parseStringified (field: string, text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw BroadcasterError.invalid(`${field}: a stringified object that does not parse as JSON; send the object itself`)
  }
}

const looksStringified = (s: string) => /^[[{]/.test(s.trim())

/** Parses an operator-supplied input (shorthand string, typed object, or stringified object). */
export function parseInput (raw: unknown): InputSpec {
  let value = raw
  if (typeof value === 'string') {
    const s = value.trim()
    if (looksStringified(s)) value = parseStringified('input', s)
    else return parseShorthand(s)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw BroadcasterError.invalid('input: expected a shorthand string or an object such as {"kind":"pull","url":"..."}')
  }
  const parsed = InputSpec.safeParse(value)
  if (!parsed.success) throw BroadcasterError.invalid(describe('input', parsed.error))
  return parsed.data
}

function parseShorthand (s: string): InputSpec {
  if (s === '') throw BroadcasterError.invalid('input: must not be empty')
  if (!noControl(s)) throw BroadcasterError.invalid('input: must not contain control characters')
  const lower = s.toLowerCase()
  if (SHORTHAND_KINDS.has(lower)) return InputSpec.parse({ kind: lower })
  if (lower === 'file' || lower === 'pull') throw BroadcasterError.invalid(`input: "${lower}" needs a ${lower === 'file' ? 'path' : 'url'}; send {"kind":"${lower}", ...}`)
  if (lower.startsWith('file://')) return parseInput({ kind: 'file', path: decodeURIComponent(new URL(s).pathname) })
  if (URL_LIKE.test(s)) {
    const scheme = s.slice(0, s.indexOf(':')).toLowerCase()
    if (!(PULL_SCHEMES as readonly string[]).includes(scheme)) throw BroadcasterError.invalid(`input: unsupported URL scheme "${scheme}" (expected ${PULL_SCHEMES.join(', ')})`)
    return parseInput({ kind: 'pull', url: s })
  }
  return parseInput({ kind: 'file', path: s })
}

/** Parses a transcode value: null clears it, an object (or its JSON text) sets it. */
export function parseTranscode (raw: unknown): Transcode | null {
  let value = raw
  if (value === null) return null
  if (typeof value === 'string') {
    const s = value.trim()
    if (s === 'null') return null
    if (!looksStringified(s)) throw BroadcasterError.invalid('transcode: expected an object or null')
    value = parseStringified('transcode', s)
    if (value === null) return null
  }
  if (typeof value !== 'object' || Array.isArray(value)) throw BroadcasterError.invalid('transcode: expected an object or null')
  const parsed = Transcode.safeParse(value)
  if (!parsed.success) throw BroadcasterError.invalid(describe('transcode', parsed.error))
  return parsed.data
}

/** Categories as an array, or a comma-separated string (forms, the env). */
export function parseCategory (raw: string[] | string | undefined): string[] | undefined {
  if (raw === undefined) return undefined
  const list = typeof raw === 'string' ? raw.split(',').map((s) => s.trim()).filter(Boolean) : raw
  if (list.length > 16 || list.some((c) => c.length < 1 || c.length > 64)) throw BroadcasterError.invalid('category: at most 16 names of 1-64 characters')
  return list
}

/** Canonical JSON (sorted keys): equal inputs give equal text. */
function canonical (value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/** Identifies a source: a channel restarted with a different fingerprint gets a new feed generation. */
export function inputFingerprint (input: InputSpec): string {
  return createHash('sha256').update(canonical(input)).digest('hex').slice(0, 32)
}

/** The ordered sources the watchdog tries: a pull URL then its fallbacks; one entry otherwise. */
export function sourcesOf (input: InputSpec): string[] {
  switch (input.kind) {
    case 'pull': return [input.url, ...input.fallbacks]
    case 'file': return [input.path]
    default: return [input.kind]
  }
}

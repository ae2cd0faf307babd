/**
 * What the logger hides. The list is fixed here, at start-up; nothing from
 * input or configuration can shorten it.
 */

/** The censor written in place of a redacted value. */
export const REDACTED = '[redacted]'

/** Property names whose values never reach a log line. */
export const SECRET_KEYS: readonly string[] = Object.freeze([
  'password', 'passphrase', 'secret', 'secretKey', 'privateKey', 'key', 'streamKey', 'publisherKey',
  'token', 'sessionToken', 'adminToken', 'verifier', 'rwd', 'wrapKey', 'encPriv', 'seed',
  'authorization', 'cookie', 'webhookSecret', 'webhookUrl', 'botToken'
])

/** pino redaction paths: each secret key at the top level and one level down, plus request headers. */
export const REDACT_PATHS: readonly string[] = Object.freeze([
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]'
])

const SECRET_LOWER = new Set(SECRET_KEYS.map((k) => k.toLowerCase()))
const MAX_DEPTH = 8

function isPlain (value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * Copy-on-write scrub of secret keys at any depth of plain objects and arrays,
 * as defence in depth behind the fixed pino paths (which reach one level down).
 * Returns the input itself when nothing had to change.
 */
export function scrubSecrets<T> (value: T, depth = 0, seen: WeakSet<object> = new WeakSet()): T {
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null || seen.has(value)) return value
  if (!Array.isArray(value) && !isPlain(value)) return value
  seen.add(value)
  let copy: any
  const entries: Array<[string | number, unknown]> = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : Object.entries(value)
  for (const [k, v] of entries) {
    const next = typeof k === 'string' && SECRET_LOWER.has(k.toLowerCase()) && v !== undefined
      ? REDACTED
      : scrubSecrets(v, depth + 1, seen)
    if (next !== v) {
      copy ??= Array.isArray(value) ? [...value] : { ...value }
      copy[k] = next
    }
  }
  return (copy ?? value) as T
}

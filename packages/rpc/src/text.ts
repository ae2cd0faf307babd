import b4a from 'b4a'

// b4a rather than TextEncoder/TextDecoder: the SDK may run this in Bare, which
// has neither global.

/** UTF-8 bytes of `text`. */
export function utf8Encode (text: string): Uint8Array {
  return b4a.from(text, 'utf8')
}

/**
 * Strict UTF-8 decode: `null` when `bytes` is not valid UTF-8 (a lenient
 * decode would silently swap in U+FFFD and change what was signed).
 */
export function utf8DecodeStrict (bytes: Uint8Array): string | null {
  const text = b4a.toString(bytes, 'utf8')
  if (b4a.byteLength(text, 'utf8') !== bytes.byteLength) return null
  return b4a.equals(b4a.from(text, 'utf8'), bytes) ? text : null
}

/** Number of UTF-8 bytes `text` encodes to. */
export function utf8Length (text: string): number {
  return b4a.byteLength(text, 'utf8')
}

/** Lowercase hex of `bytes`. */
export function toHex (bytes: Uint8Array): string {
  return b4a.toString(bytes, 'hex')
}

/** True for a plain JSON object (not null, not an array). */
export function isJsonObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

import sodium from 'sodium-native'
import { CryptoError } from './errors.js'

// Argument checks shared by every module. They throw coded errors and never echo values.

export function assertBytes (name: string, value: unknown, length?: number): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) throw CryptoError.badType(name, 'a Uint8Array')
  if (length !== undefined && value.length !== length) throw CryptoError.badLength(name, length, value.length)
}

export function assertBytesRange (name: string, value: unknown, min: number, max: number): asserts value is Uint8Array {
  assertBytes(name, value)
  if (value.length < min || value.length > max) throw CryptoError.badLength(name, `${min} to ${max}`, value.length)
}

export function assertString (name: string, value: unknown): asserts value is string {
  if (typeof value !== 'string') throw CryptoError.badType(name, 'a string')
}

export function assertNonEmptyString (name: string, value: unknown): asserts value is string {
  assertString(name, value)
  if (value.length === 0) throw CryptoError.badInput(name, 'must not be empty')
}

export function isPlainObject (value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

const HEX = '0123456789abcdef'

/** Lowercase hex of `bytes`. */
export function toHex (bytes: Uint8Array): string {
  assertBytes('bytes', bytes)
  let out = ''
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number
    out += HEX[b >> 4]! + HEX[b & 15]!
  }
  return out
}

function hexNibble (code: number): number {
  if (code >= 48 && code <= 57) return code - 48 // 0-9
  if (code >= 97 && code <= 102) return code - 87 // a-f
  if (code >= 65 && code <= 70) return code - 55 // A-F
  return -1
}

/**
 * Decodes hex (either case). With `expectedLength`, the decoded byte length must match.
 * Throws `CRYPTO_BAD_HEX` for anything else (odd length, stray characters, wrong length).
 */
export function fromHex (hex: string, expectedLength?: number): Uint8Array {
  if (typeof hex !== 'string') throw CryptoError.badType('hex', 'a string')
  if (expectedLength !== undefined && (!Number.isSafeInteger(expectedLength) || expectedLength < 0)) {
    throw CryptoError.badInput('expectedLength', 'must be a non-negative integer')
  }
  if (hex.length % 2 !== 0) throw CryptoError.badHex('hex', 'has an odd number of characters')
  if (expectedLength !== undefined && hex.length !== expectedLength * 2) {
    throw CryptoError.badHex('hex', `must encode ${expectedLength} bytes, got ${hex.length / 2}`)
  }
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) {
    const hi = hexNibble(hex.charCodeAt(2 * i))
    const lo = hexNibble(hex.charCodeAt(2 * i + 1))
    if (hi < 0 || lo < 0) throw CryptoError.badHex('hex', 'contains a non-hex character')
    out[i] = (hi << 4) | lo
  }
  return out
}

/**
 * Compares two byte arrays in time independent of their contents. Arrays of different
 * lengths are unequal (the length itself is not treated as secret).
 */
export function constantTimeEqual (a: Uint8Array, b: Uint8Array): boolean {
  assertBytes('a', a)
  assertBytes('b', b)
  if (a.length !== b.length) return false
  if (a.length === 0) return true
  return sodium.sodium_memcmp(a, b)
}

export function concatBytes (...parts: Uint8Array[]): Uint8Array {
  let total = 0
  for (const p of parts) total += p.length
  const out = new Uint8Array(total)
  let offset = 0
  for (const p of parts) {
    out.set(p, offset)
    offset += p.length
  }
  return out
}

import { assertBytes, concatBytes } from './bytes.js'
import { utf8Encode } from './encoding.js'
import { CryptoError } from './errors.js'
import { blake2b256 } from './primitives.js'

// Service pairing code (spec 1 "Admin CLI": init prints it; GET /api/status: pairingCode):
// 12 RFC 4648 base32 characters (60 bits) of BLAKE2b-256("arus/v1/pairing-code" ‖ panel key),
// shown as XXXX-XXXX-XXXX. A viewer types it to check the panel key it was given.

const PAIRING_TAG = utf8Encode('arus/v1/pairing-code')
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
const CODE_CHARS = 12
/** Longest raw input normalizePairingCode looks at (generous room for spaces and dashes). */
const MAX_INPUT_LENGTH = 64
/** Characters people type for base32 letters: digits 0, 1 and 8 are not in the alphabet. */
const CONFUSIONS: Readonly<Record<string, string>> = { 0: 'O', 1: 'I', 8: 'B' }

function format (chars: string): string {
  return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8, 12)}`
}

/** The pairing code `XXXX-XXXX-XXXX` of a 32-byte panel public key. */
export function pairingCode (panelPubKey: Uint8Array): string {
  assertBytes('panelPubKey', panelPubKey, 32)
  const digest = blake2b256(concatBytes(PAIRING_TAG, panelPubKey))
  let bits = 0n
  for (let i = 0; i < 8; i++) bits = (bits << 8n) | BigInt(digest[i] as number)
  bits >>= 4n // keep the top 60 bits
  let chars = ''
  for (let i = CODE_CHARS - 1; i >= 0; i--) chars += BASE32[Number((bits >> BigInt(5 * i)) & 31n)]
  return format(chars)
}

/**
 * Canonical form of a typed code: case-insensitive, spaces and dashes anywhere ignored, and
 * the digits 0, 1, 8 read as O, I, B. Throws `CRYPTO_BAD_PAIRING_CODE` unless exactly 12
 * base32 characters remain.
 */
export function normalizePairingCode (input: string): string {
  if (typeof input !== 'string') throw CryptoError.badType('input', 'a string')
  if (input.length > MAX_INPUT_LENGTH) throw CryptoError.badPairingCode('is too long')
  let chars = ''
  for (const ch of input) {
    if (ch === '-' || /\s/.test(ch)) continue
    // ASCII-only case folding: toUpperCase() on the whole string would turn 'ß' into 'SS'.
    const upper = ch >= 'a' && ch <= 'z' ? ch.toUpperCase() : ch
    const mapped = CONFUSIONS[upper] ?? upper
    if (!BASE32.includes(mapped)) throw CryptoError.badPairingCode('contains a character outside A-Z and 2-7')
    chars += mapped
  }
  if (chars.length !== CODE_CHARS) throw CryptoError.badPairingCode(`must have ${CODE_CHARS} characters, got ${chars.length}`)
  return format(chars)
}

/** True when `input` (any form normalizePairingCode accepts) is the code of `panelPubKey`; false for unparseable input. */
export function pairingCodeMatches (panelPubKey: Uint8Array, input: string): boolean {
  const expected = pairingCode(panelPubKey)
  let normalized: string
  try {
    normalized = normalizePairingCode(input)
  } catch (err) {
    if (err instanceof CryptoError && err.code === 'CRYPTO_BAD_PAIRING_CODE') return false
    throw err
  }
  return normalized === expected
}

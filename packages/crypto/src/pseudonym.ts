import { hmac } from '@noble/hashes/hmac.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { assertBytes, assertNonEmptyString, toHex } from './bytes.js'
import { utf8Encode } from './encoding.js'
import { CryptoError } from './errors.js'

// Problem-report pseudonym (spec 1, "Problem report", pseudonym rule):
//   reporter = first 16 hex chars of HMAC-SHA256(key = salt, utf8(userId ‖ SEP ‖ deviceId))
// SEP is NUL (U+0000): the separator every stored report's `reporter` was made with
// (docs/panel.md "Problem reports"), so it must never change — a new separator would
// re-pseudonymize every viewer, which the spec allows only as a deliberate salt rotation.
// Neither id may contain it (a username cannot, a device id is hex), so the pair is
// encoded unambiguously. This is the only implementation; @arus/reports re-exports it.

/** The separator between userId and deviceId: U+0000 (NUL). */
export const PSEUDONYM_SEPARATOR = '\u0000'
/** Length of the panel-held pseudonym salt. */
export const PSEUDONYM_SALT_BYTES = 32

function checkId (name: string, value: unknown): asserts value is string {
  assertNonEmptyString(name, value)
  if (value.includes(PSEUDONYM_SEPARATOR)) throw CryptoError.badInput(name, 'must not contain NUL')
}

/** The 16-hex-character reporter pseudonym of (userId, deviceId) under the panel's 32-byte salt. */
export function reportPseudonym (salt: Uint8Array, userId: string, deviceId: string): string {
  assertBytes('salt', salt, PSEUDONYM_SALT_BYTES)
  checkId('userId', userId)
  checkId('deviceId', deviceId)
  const mac = hmac(sha256, salt, utf8Encode(userId + PSEUDONYM_SEPARATOR + deviceId, 'userId/deviceId'))
  return toHex(mac.subarray(0, 8))
}

import sodium from 'sodium-native'
import { assertBytes, isPlainObject } from './bytes.js'
import { CryptoError } from './errors.js'

/** Argon2id cost as recorded per user (spec 1, "User record": argon) and in escrow envelopes. */
export interface ArgonCost {
  /** Passes over memory (libsodium `opslimit`). */
  opslimit: number
  /** Memory in bytes (libsodium `memlimit`). */
  memlimit: number
}

/** Production cost: 3 passes over 64 MiB (spec 1, "Authentication" point 1: 64 MiB default). */
export const DEFAULT_ARGON: Readonly<ArgonCost> = Object.freeze({ opslimit: 3, memlimit: 64 * 1024 * 1024 })

/** libsodium's minimum Argon2id cost (1 pass, 8 KiB): for tests only, never for real secrets. */
export const TEST_ARGON: Readonly<ArgonCost> = Object.freeze({
  opslimit: sodium.crypto_pwhash_OPSLIMIT_MIN,
  memlimit: sodium.crypto_pwhash_MEMLIMIT_MIN
})

/** The bounds `validateArgonCost` enforces: libsodium's Argon2id limits. */
export const ARGON_LIMITS = Object.freeze({
  opslimitMin: sodium.crypto_pwhash_OPSLIMIT_MIN,
  opslimitMax: sodium.crypto_pwhash_OPSLIMIT_MAX,
  memlimitMin: sodium.crypto_pwhash_MEMLIMIT_MIN,
  memlimitMax: sodium.crypto_pwhash_MEMLIMIT_MAX
})

/**
 * Checks `cost` is `{ opslimit, memlimit }` with integers inside libsodium's Argon2id bounds
 * (or the tighter `max` given) and returns a clean copy. Throws `CRYPTO_BAD_ARGON_COST`.
 */
export function validateArgonCost (cost: unknown, max?: Readonly<ArgonCost>): ArgonCost {
  if (!isPlainObject(cost)) throw CryptoError.badArgonCost('must be an object { opslimit, memlimit }')
  const { opslimit, memlimit } = cost
  const opsMax = max?.opslimit ?? ARGON_LIMITS.opslimitMax
  const memMax = max?.memlimit ?? ARGON_LIMITS.memlimitMax
  if (typeof opslimit !== 'number' || !Number.isSafeInteger(opslimit) || opslimit < ARGON_LIMITS.opslimitMin || opslimit > opsMax) {
    throw CryptoError.badArgonCost(`opslimit must be an integer from ${ARGON_LIMITS.opslimitMin} to ${opsMax}`)
  }
  if (typeof memlimit !== 'number' || !Number.isSafeInteger(memlimit) || memlimit < ARGON_LIMITS.memlimitMin || memlimit > memMax) {
    throw CryptoError.badArgonCost(`memlimit must be an integer from ${ARGON_LIMITS.memlimitMin} to ${memMax}`)
  }
  return { opslimit, memlimit }
}

/** Argon2id13 into a 32-byte output, on libsodium's thread pool (off the JS thread). */
export async function argon2id (password: Uint8Array, salt: Uint8Array, cost: ArgonCost): Promise<Uint8Array> {
  assertBytes('salt', salt, sodium.crypto_pwhash_SALTBYTES)
  if (password.length > sodium.crypto_pwhash_PASSWD_MAX) throw CryptoError.badLength('password', 'at most PASSWD_MAX', password.length)
  const out = new Uint8Array(32)
  try {
    await sodium.crypto_pwhash_async(out, password, salt, cost.opslimit, cost.memlimit, sodium.crypto_pwhash_ALG_ARGON2ID13)
  } catch (err) {
    throw CryptoError.kdfFailed(err)
  }
  return out
}

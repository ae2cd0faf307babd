import { argon2id, validateArgonCost } from './argon.js'
import type { ArgonCost } from './argon.js'
import { assertBytes, assertNonEmptyString, constantTimeEqual } from './bytes.js'
import { utf8Encode } from './encoding.js'
import { oprf, OPRF_OUTPUT_BYTES } from './oprf.js'
import { blake2b256, deriveSubkey, generateSigningKeyPair } from './primitives.js'
import type { KeyPair } from './primitives.js'

// Login key material (ARCHITECTURE.md "Login"; spec 1 "User record"):
//   sk_user  = OPRF DeriveKeyPair(masterSeed, "arus-user:" ‖ username)
//   output   = OPRF(sk_user, password)                  (64 bytes, client side)
//   rwd      = BLAKE2b-256(key = output, "arus/v1/rwd")
//   verifier = Argon2id(rwd, salt, user.argon)          (user.verifier)
//   wrapKey  = BLAKE2b-256(key = rwd, "arus/v1/wrap-key") seals the X25519 secret (user.encPriv)
//   authSeed = BLAKE2b-256(key = rwd, "arus/v1/auth-seed") → Ed25519 auth key pair (user.authPub)
// The labels below are part of the on-disk format: changing one locks every user out.

const USER_KEY_INFO_PREFIX = 'arus-user:'
const RWD_LABEL = 'arus/v1/rwd'
const WRAP_KEY_LABEL = 'arus/v1/wrap-key'
const AUTH_SEED_LABEL = 'arus/v1/auth-seed'
const DECOY_SALT_LABEL = 'arus/v1/decoy-salt'

/** Length of rwd, verifiers, wrap keys and OPRF master seeds. */
export const KEY_BYTES = 32
/** Length of Argon2id salts (spec 1, "User record": salt). */
export const SALT_BYTES = 16

/**
 * The per-user OPRF secret key: RFC 9497 DeriveKeyPair with the panel's 32-byte master seed
 * and key info `utf8("arus-user:" + username)`. Unknown usernames get a key too, so their
 * evaluations look like real ones (as OPAQUE does). `username` is used verbatim: normalize
 * it before calling.
 */
export function deriveUserOprfKey (masterSeed: Uint8Array, username: string): Uint8Array {
  assertBytes('masterSeed', masterSeed, KEY_BYTES)
  assertNonEmptyString('username', username)
  return oprf.deriveKeyPair(masterSeed, utf8Encode(USER_KEY_INFO_PREFIX + username, 'username')).sk
}

/**
 * The salt the panel gives for a username without an account (the RPC `kdf` method answers
 * unknown names alike): BLAKE2b-256 keyed with a subkey of the master seed, over the username,
 * cut to {@link SALT_BYTES}. Stable per name; without the seed it looks like any random salt.
 */
export function deriveDecoySalt (masterSeed: Uint8Array, username: string): Uint8Array {
  assertBytes('masterSeed', masterSeed, KEY_BYTES)
  assertNonEmptyString('username', username)
  return blake2b256(utf8Encode(username, 'username'), deriveSubkey(masterSeed, DECOY_SALT_LABEL)).slice(0, SALT_BYTES)
}

/** rwd (32 bytes) from the 64-byte OPRF output. */
export function deriveRwd (oprfOutput: Uint8Array): Uint8Array {
  assertBytes('oprfOutput', oprfOutput, OPRF_OUTPUT_BYTES)
  return blake2b256(utf8Encode(RWD_LABEL), oprfOutput)
}

/** The key that seals the user's X25519 secret key (`encPriv`) with {@link sealSecret}. */
export function deriveWrapKey (rwd: Uint8Array): Uint8Array {
  assertBytes('rwd', rwd, KEY_BYTES)
  return deriveSubkey(rwd, WRAP_KEY_LABEL)
}

/** The user's Ed25519 auth key pair, deterministic from rwd; its public half is `authPub`. */
export function deriveAuthKeyPair (rwd: Uint8Array): KeyPair {
  assertBytes('rwd', rwd, KEY_BYTES)
  return generateSigningKeyPair(deriveSubkey(rwd, AUTH_SEED_LABEL))
}

/**
 * The 32-byte password verifier Argon2id(rwd, salt) at `cost`, computed on libsodium's thread
 * pool. Rejects with `CRYPTO_BAD_ARGON_COST` for a cost outside libsodium's bounds.
 */
export async function computeVerifier (rwd: Uint8Array, salt: Uint8Array, cost: ArgonCost): Promise<Uint8Array> {
  assertBytes('rwd', rwd, KEY_BYTES)
  assertBytes('salt', salt, SALT_BYTES)
  return await argon2id(rwd, salt, validateArgonCost(cost))
}

/**
 * Recomputes the verifier and compares in constant time. A wrong-length `expected` (corrupt
 * record) resolves false; wrong types and bad costs reject.
 */
export async function verifyVerifier (rwd: Uint8Array, salt: Uint8Array, cost: ArgonCost, expected: Uint8Array): Promise<boolean> {
  assertBytes('expected', expected)
  const actual = await computeVerifier(rwd, salt, cost)
  return constantTimeEqual(actual, expected)
}

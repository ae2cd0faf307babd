import { argon2id, validateArgonCost } from './argon.js'
import type { ArgonCost } from './argon.js'
import { assertBytes, assertNonEmptyString, concatBytes, constantTimeEqual } from './bytes.js'
import { utf8Encode } from './encoding.js'
import { oprf, OPRF_OUTPUT_BYTES } from './oprf.js'
import { blake2b256, deriveSubkey, generateSigningKeyPair } from './primitives.js'
import type { KeyPair } from './primitives.js'

// Login key material (docs/architecture.md "Login"; spec 1 "User record"). Both schedules
// start from the OPRF output; a user record says which one its keys came from (`keyVersion`,
// absent = 1).
//   sk_user  = OPRF DeriveKeyPair(masterSeed, "arus-user:" ‖ username)
//   output   = OPRF(sk_user, password)                  (64 bytes, client side)
// Version 1 (records written before issue 40; read, never written):
//   rwd      = BLAKE2b-256(key = output, "arus/v1/rwd")
//   verifier = Argon2id(rwd, salt, user.argon)          (user.verifier)
//   wrapKey  = BLAKE2b-256(key = rwd, "arus/v1/wrap-key") seals the X25519 secret (user.encPriv)
//   authSeed = BLAKE2b-256(key = rwd, "arus/v1/auth-seed") → Ed25519 auth key pair (user.authPub)
// Version 2 (RFC 9807's order: stretch first, then derive every key):
//   rwd2      = BLAKE2b-256(key = output, "arus/v2/rwd")
//   stretched = Argon2id(rwd2, salt, user.argon)
//   prk       = BLAKE2b-256(key = rwd2, "arus/v2/prk" ‖ stretched)   (RFC 9807: Extract(output ‖ Stretch(output)))
//   wrapKey   = BLAKE2b-256(key = prk, "arus/v2/wrap-key")
//   authSeed  = BLAKE2b-256(key = prk, "arus/v2/auth-seed") → Ed25519 auth key pair
//   verifier  = BLAKE2b-256(key = prk, "arus/v2/verifier")   (never `stretched` itself: the record is public)
// The labels below are part of the on-disk format: changing one locks every user out.

const USER_KEY_INFO_PREFIX = 'arus-user:'
const RWD_LABEL = 'arus/v1/rwd'
const WRAP_KEY_LABEL = 'arus/v1/wrap-key'
const AUTH_SEED_LABEL = 'arus/v1/auth-seed'
const RWD_V2_LABEL = 'arus/v2/rwd'
const PRK_V2_LABEL = 'arus/v2/prk'
const WRAP_KEY_V2_LABEL = 'arus/v2/wrap-key'
const AUTH_SEED_V2_LABEL = 'arus/v2/auth-seed'
const VERIFIER_V2_LABEL = 'arus/v2/verifier'

/** The key schedule the panel writes for every new user and every password set. */
export const KEY_SCHEDULE_CURRENT = 2 as const

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

/** The keys a password opens: the wrap key of `encPriv` and the auth key pair of `authPub`. */
export interface LoginKeys {
  wrapKey: Uint8Array
  auth: KeyPair
}

/** Key schedule 1 (no stretching): the keys straight from the OPRF output. Read-only legacy. */
export function deriveLoginKeysV1 (oprfOutput: Uint8Array): LoginKeys {
  const rwd = deriveRwd(oprfOutput)
  return { wrapKey: deriveWrapKey(rwd), auth: deriveAuthKeyPair(rwd) }
}

/**
 * Key schedule 2: Argon2id at `cost` over the OPRF output (domain-separated) before any key
 * is derived, so every check of a password guess costs one Argon2id, even for someone who
 * holds the panel's OPRF seed. `verifier` is the record's `verifier` field (a hash of the
 * stretched value, never the value itself). Argon2id runs on libsodium's thread pool.
 */
export async function deriveLoginKeysV2 (oprfOutput: Uint8Array, salt: Uint8Array, cost: ArgonCost): Promise<LoginKeys & { verifier: Uint8Array }> {
  assertBytes('oprfOutput', oprfOutput, OPRF_OUTPUT_BYTES)
  assertBytes('salt', salt, SALT_BYTES)
  const rwd2 = blake2b256(utf8Encode(RWD_V2_LABEL), oprfOutput)
  const stretched = await argon2id(rwd2, salt, validateArgonCost(cost))
  const prk = blake2b256(concatBytes(utf8Encode(PRK_V2_LABEL), stretched), rwd2)
  return {
    wrapKey: deriveSubkey(prk, WRAP_KEY_V2_LABEL),
    auth: generateSigningKeyPair(deriveSubkey(prk, AUTH_SEED_V2_LABEL)),
    verifier: deriveSubkey(prk, VERIFIER_V2_LABEL)
  }
}

import sodium from 'sodium-native'
import { assertBytes, assertBytesRange } from './bytes.js'
import { utf8Encode } from './encoding.js'
import { CryptoError } from './errors.js'

/** An Ed25519 (`secretKey` 64 bytes) or X25519 (`secretKey` 32 bytes) key pair; both `publicKey`s are 32 bytes. */
export interface KeyPair {
  publicKey: Uint8Array
  secretKey: Uint8Array
}

/** Largest `randomBytes` request (1 MiB); a bigger one is a bug, not a need. */
const MAX_RANDOM_BYTES = 1 << 20

/** `n` bytes from the operating system's CSPRNG (via libsodium). */
export function randomBytes (n: number): Uint8Array {
  if (typeof n !== 'number') throw CryptoError.badType('n', 'a number')
  if (!Number.isInteger(n) || n < 0 || n > MAX_RANDOM_BYTES) {
    throw CryptoError.badInput('n', `must be an integer from 0 to ${MAX_RANDOM_BYTES}`)
  }
  const out = new Uint8Array(n)
  if (n > 0) sodium.randombytes_buf(out)
  return out
}

/** A fresh 16-byte Argon2id salt (spec 1, "User record": salt). */
export function newSalt (): Uint8Array {
  return randomBytes(sodium.crypto_pwhash_SALTBYTES)
}

/** A fresh X25519 key pair for `crypto_box_seal` (the user's `pub` / sealed `encPriv`). */
export function boxKeyPair (): KeyPair {
  const publicKey = new Uint8Array(sodium.crypto_box_PUBLICKEYBYTES)
  const secretKey = new Uint8Array(sodium.crypto_box_SECRETKEYBYTES)
  sodium.crypto_box_keypair(publicKey, secretKey)
  return { publicKey, secretKey }
}

/**
 * An Ed25519 key pair: random, or deterministic from a 32-byte `seed`.
 * `secretKey` is libsodium's 64-byte form (seed ‖ public key).
 */
export function generateSigningKeyPair (seed?: Uint8Array): KeyPair {
  const publicKey = new Uint8Array(sodium.crypto_sign_PUBLICKEYBYTES)
  const secretKey = new Uint8Array(sodium.crypto_sign_SECRETKEYBYTES)
  if (seed === undefined) {
    sodium.crypto_sign_keypair(publicKey, secretKey)
  } else {
    assertBytes('seed', seed, sodium.crypto_sign_SEEDBYTES)
    sodium.crypto_sign_seed_keypair(publicKey, secretKey, seed)
  }
  return { publicKey, secretKey }
}

/** Detached Ed25519 signature (64 bytes) of `message`. */
export function sign (message: Uint8Array, secretKey: Uint8Array): Uint8Array {
  assertBytes('message', message)
  assertBytes('secretKey', secretKey, sodium.crypto_sign_SECRETKEYBYTES)
  const sig = new Uint8Array(sodium.crypto_sign_BYTES)
  sodium.crypto_sign_detached(sig, message, secretKey)
  return sig
}

/**
 * Verifies a detached Ed25519 signature. Wrong-length signatures or keys return false
 * (they arrive from peers); only a non-Uint8Array argument throws `CRYPTO_BAD_TYPE`.
 */
export function verify (message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
  assertBytes('message', message)
  assertBytes('signature', signature)
  assertBytes('publicKey', publicKey)
  if (signature.length !== sodium.crypto_sign_BYTES) return false
  if (publicKey.length !== sodium.crypto_sign_PUBLICKEYBYTES) return false
  return sodium.crypto_sign_verify_detached(signature, message, publicKey)
}

/** BLAKE2b with a 32-byte digest; optional `key` of 16–64 bytes makes it a keyed MAC/PRF. */
export function blake2b256 (data: Uint8Array, key?: Uint8Array): Uint8Array {
  assertBytes('data', data)
  const out = new Uint8Array(32)
  if (key === undefined) {
    sodium.crypto_generichash(out, data)
  } else {
    assertBytesRange('key', key, sodium.crypto_generichash_KEYBYTES_MIN, sodium.crypto_generichash_KEYBYTES_MAX)
    sodium.crypto_generichash(out, data, key)
  }
  return out
}

/**
 * Domain-separated 32-byte subkey: keyed BLAKE2b-256 with `key` as the BLAKE2b key and the
 * ASCII `label` as the message. Distinct labels give independent keys from one secret.
 */
export function deriveSubkey (key: Uint8Array, label: string): Uint8Array {
  return blake2b256(utf8Encode(label), key)
}

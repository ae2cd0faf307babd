import sodium from 'sodium-native'
import { assertBytes, fromHex, toHex } from './bytes.js'
import { CryptoError } from './errors.js'
import { randomBytes } from './primitives.js'

// Secret sealing for the user's X25519 secret key (spec 1, "User record": encPriv, "hex
// (nonce followed by ciphertext)"): XSalsa20-Poly1305 secretbox, 24-byte random nonce.

const NONCE_BYTES = sodium.crypto_secretbox_NONCEBYTES
const MAC_BYTES = sodium.crypto_secretbox_MACBYTES

/** Seals `plaintext` under a 32-byte key; returns lowercase hex of nonce ‖ ciphertext. */
export function sealSecret (key: Uint8Array, plaintext: Uint8Array): string {
  assertBytes('key', key, sodium.crypto_secretbox_KEYBYTES)
  assertBytes('plaintext', plaintext)
  const nonce = randomBytes(NONCE_BYTES)
  const out = new Uint8Array(NONCE_BYTES + MAC_BYTES + plaintext.length)
  out.set(nonce, 0)
  sodium.crypto_secretbox_easy(out.subarray(NONCE_BYTES), plaintext, nonce, key)
  return toHex(out)
}

/**
 * Opens a {@link sealSecret} hex string. Throws `CRYPTO_BAD_HEX` for non-hex input and
 * `CRYPTO_OPEN_FAILED` when it is too short or does not authenticate under `key`.
 */
export function openSecret (key: Uint8Array, sealedHex: string): Uint8Array {
  assertBytes('key', key, sodium.crypto_secretbox_KEYBYTES)
  const sealed = fromHex(sealedHex)
  if (sealed.length < NONCE_BYTES + MAC_BYTES) throw CryptoError.openFailed()
  const nonce = sealed.subarray(0, NONCE_BYTES)
  const ciphertext = sealed.subarray(NONCE_BYTES)
  const plaintext = new Uint8Array(ciphertext.length - MAC_BYTES)
  if (!sodium.crypto_secretbox_open_easy(plaintext, ciphertext, nonce, key)) throw CryptoError.openFailed()
  return plaintext
}

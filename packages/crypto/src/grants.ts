import sodium from 'sodium-native'
import { assertBytes, fromHex, toHex } from './bytes.js'
import { CryptoError } from './errors.js'

// Grants (ARCHITECTURE.md "Login"; spec 1 "User record": wrapped):
//   wrapped[streamId] = hex(crypto_box_seal(streamKey, user.pub))
// The panel can grant without the user's password; only the user's X25519 secret opens it.

/** Length of a stream content key. */
export const STREAM_KEY_BYTES = 32
/** Length of a sealed grant (48 bytes of sealed-box overhead plus the key). */
export const GRANT_BYTES = sodium.crypto_box_SEALBYTES + STREAM_KEY_BYTES

/**
 * Seals a 32-byte stream key to a user's X25519 public key; returns lowercase hex. Throws
 * `CRYPTO_BAD_INPUT` for a low-order `userPub` (e.g. all zeros), which libsodium refuses.
 */
export function sealGrant (streamKey: Uint8Array, userPub: Uint8Array): string {
  assertBytes('streamKey', streamKey, STREAM_KEY_BYTES)
  assertBytes('userPub', userPub, sodium.crypto_box_PUBLICKEYBYTES)
  const out = new Uint8Array(GRANT_BYTES)
  try {
    sodium.crypto_box_seal(out, streamKey, userPub)
  } catch (err) {
    // libsodium fails the X25519 step when the shared secret is all zeros (low-order point).
    throw CryptoError.badInput('userPub', 'is a low-order X25519 public key', err)
  }
  return toHex(out)
}

/**
 * Opens a {@link sealGrant} hex string with the user's X25519 key pair. Throws `CRYPTO_BAD_HEX`
 * for non-hex or wrong-length input and `CRYPTO_GRANT_OPEN_FAILED` when it does not open.
 */
export function openGrant (grantHex: string, userPub: Uint8Array, userSecret: Uint8Array): Uint8Array {
  assertBytes('userPub', userPub, sodium.crypto_box_PUBLICKEYBYTES)
  assertBytes('userSecret', userSecret, sodium.crypto_box_SECRETKEYBYTES)
  const sealed = fromHex(grantHex, GRANT_BYTES)
  const streamKey = new Uint8Array(STREAM_KEY_BYTES)
  if (!sodium.crypto_box_seal_open(streamKey, sealed, userPub, userSecret)) throw CryptoError.grantOpenFailed()
  return streamKey
}

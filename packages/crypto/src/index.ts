/**
 * `@arus/crypto` — the cryptography of Arus, as plain functions over `Uint8Array`s.
 *
 * - RFC 9497 OPRF (mode 0x00, ristretto255-SHA512) and the login key schedules built on it:
 *   per-user OPRF keys; version 2 stretches the OPRF output with Argon2id before the wrap key
 *   and the Ed25519 auth key are derived (RFC 9807's order), version 1 (legacy) does not
 *   (ARCHITECTURE.md "Login"; spec 1 "User record", "Authentication").
 * - Secret sealing (`encPriv`), sealed-box grants (`wrapped`), Ed25519-signed tokens,
 *   proof of work for `hello`, report pseudonyms, identity escrow envelopes, pairing codes.
 *
 * Every function checks its arguments and throws {@link CryptoError} with a stable `code`
 * from {@link CRYPTO_ERROR_CODES}. Nothing here logs. Hex output is lowercase. The package
 * uses only sodium-native, @noble/curves and @noble/hashes — no Node built-ins, no Buffer —
 * so the viewer SDK can bundle it.
 *
 * @packageDocumentation
 */

export { CryptoError, CRYPTO_ERROR_CODES } from './errors.js'
export type { CryptoErrorCode } from './errors.js'

export { toHex, fromHex, constantTimeEqual } from './bytes.js'
export { randomBytes, newSalt, boxKeyPair, generateSigningKeyPair, sign, verify, blake2b256 } from './primitives.js'
export type { KeyPair } from './primitives.js'

export { oprf, OPRF_ELEMENT_BYTES, OPRF_SCALAR_BYTES, OPRF_OUTPUT_BYTES } from './oprf.js'
export type { OprfKeyPair, OprfBlindResult } from './oprf.js'

export { DEFAULT_ARGON, TEST_ARGON, ARGON_LIMITS, validateArgonCost } from './argon.js'
export type { ArgonCost } from './argon.js'
export type { LoginKeys } from './kdf.js'
export {
  deriveUserOprfKey,
  deriveRwd,
  computeVerifier,
  verifyVerifier,
  deriveWrapKey,
  deriveAuthKeyPair,
  deriveLoginKeysV1,
  deriveLoginKeysV2,
  KEY_SCHEDULE_CURRENT,
  KEY_BYTES,
  SALT_BYTES
} from './kdf.js'

export { sealSecret, openSecret } from './seal.js'
export { sealGrant, openGrant, STREAM_KEY_BYTES, GRANT_BYTES } from './grants.js'
export { sealGroupChannelKey, openGroupChannelKey, openGrants, GROUP_KEY_BYTES, type SealedGrantsOf, type GroupKeysOf } from './groups.js'

export { signToken, verifyToken, decodeTokenUnverified, MAX_TOKEN_LENGTH } from './tokens.js'
export type { TokenPayload, VerifyTokenOptions } from './tokens.js'

export { createPowChallenge, solvePow, verifyPow, POW_CHALLENGE_BYTES, POW_NONCE_BYTES, POW_MAX_DIFFICULTY } from './pow.js'
export type { SolvePowOptions } from './pow.js'

export { reportPseudonym, PSEUDONYM_SEPARATOR, PSEUDONYM_SALT_BYTES } from './pseudonym.js'

export {
  sealEscrow,
  openEscrow,
  parseEscrowEnvelope,
  ESCROW_VERSION,
  ESCROW_KIND,
  ESCROW_KDF_ALG,
  ESCROW_MAX_COST,
  ESCROW_MAX_SECRET_BYTES
} from './escrow.js'
export type { EscrowEnvelope, SealEscrowOptions, OpenEscrowOptions } from './escrow.js'

export { pairingCode, normalizePairingCode, pairingCodeMatches } from './pairing.js'

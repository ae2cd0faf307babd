/**
 * Every code `@arus/crypto` can throw, with its one-line meaning. Codes are stable and never
 * reused; callers match on `err.code`, never on the message. Messages name the argument and
 * the expected shape, never a secret value.
 */
export const CRYPTO_ERROR_CODES = {
  CRYPTO_BAD_TYPE: 'An argument has the wrong type (e.g. not a Uint8Array, not a string, not a plain object).',
  CRYPTO_BAD_LENGTH: 'A byte array has the wrong length.',
  CRYPTO_BAD_INPUT: 'An argument has the right type but a value the function does not accept (empty, out of range, lone surrogate, forbidden character).',
  CRYPTO_BAD_HEX: 'A string is not hex, or does not decode to the expected number of bytes.',
  CRYPTO_INVALID_POINT: 'A ristretto255 element is not a canonical 32-byte encoding or is the identity.',
  CRYPTO_INVALID_SCALAR: 'A ristretto255 scalar is zero, not reduced below the group order, or not 32 bytes.',
  CRYPTO_BAD_ARGON_COST: 'Argon2id cost {opslimit, memlimit} is not integers within the allowed bounds.',
  CRYPTO_KDF_FAILED: 'Argon2id could not run (e.g. its memory could not be allocated).',
  CRYPTO_OPEN_FAILED: 'A sealed secret is too short or did not authenticate under the given key.',
  CRYPTO_GRANT_OPEN_FAILED: 'A sealed grant did not open with the given X25519 key pair.',
  CRYPTO_TOKEN_MALFORMED: 'A token is not <base64url payload>.<base64url 64-byte signature> with a JSON object payload carrying a numeric exp.',
  CRYPTO_TOKEN_BAD_SIGNATURE: 'A token signature does not verify under the given public key.',
  CRYPTO_TOKEN_EXPIRED: 'A token is correctly signed but its exp (epoch ms) is not after now.',
  CRYPTO_BAD_POW_DIFFICULTY: 'A proof-of-work difficulty is not an integer from 0 to 32.',
  CRYPTO_POW_EXHAUSTED: 'solvePow tried maxIterations nonces without finding a solution.',
  CRYPTO_ESCROW_MALFORMED: 'An escrow envelope does not have exactly the v1 shape, or asks for a cost above the escrow cap.',
  CRYPTO_ESCROW_OPEN_FAILED: 'An escrow envelope did not open: wrong passphrase, or its fingerprint, parameters or ciphertext were edited.',
  CRYPTO_ESCROW_FINGERPRINT_MISMATCH: 'An escrow envelope carries another fingerprint than the caller expected (checked before decrypting).',
  CRYPTO_BAD_PAIRING_CODE: 'A string is not a 12-character base32 pairing code after normalization.'
} as const

/** One of the stable codes in {@link CRYPTO_ERROR_CODES}. */
export type CryptoErrorCode = keyof typeof CRYPTO_ERROR_CODES

/** The single error class of `@arus/crypto`; `code` is one of {@link CRYPTO_ERROR_CODES}. */
export class CryptoError extends Error {
  readonly code: CryptoErrorCode

  constructor (code: CryptoErrorCode, message: string = CRYPTO_ERROR_CODES[code], options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'CryptoError'
    this.code = code
  }

  static badType (name: string, expected: string): CryptoError {
    return new CryptoError('CRYPTO_BAD_TYPE', `${name} must be ${expected}`)
  }

  static badLength (name: string, expected: number | string, got: number): CryptoError {
    return new CryptoError('CRYPTO_BAD_LENGTH', `${name} must be ${expected} bytes, got ${got}`)
  }

  static badInput (name: string, rule: string, cause?: unknown): CryptoError {
    return new CryptoError('CRYPTO_BAD_INPUT', `${name} ${rule}`, { cause })
  }

  static badHex (name: string, rule: string): CryptoError {
    return new CryptoError('CRYPTO_BAD_HEX', `${name} ${rule}`)
  }

  static invalidPoint (name: string, cause?: unknown): CryptoError {
    return new CryptoError('CRYPTO_INVALID_POINT', `${name} is not a valid non-identity ristretto255 element`, { cause })
  }

  static invalidScalar (name: string, cause?: unknown): CryptoError {
    return new CryptoError('CRYPTO_INVALID_SCALAR', `${name} is not a non-zero canonical ristretto255 scalar`, { cause })
  }

  static badArgonCost (rule: string): CryptoError {
    return new CryptoError('CRYPTO_BAD_ARGON_COST', `argon cost ${rule}`)
  }

  static kdfFailed (cause: unknown): CryptoError {
    return new CryptoError('CRYPTO_KDF_FAILED', 'Argon2id failed', { cause })
  }

  static openFailed (): CryptoError {
    return new CryptoError('CRYPTO_OPEN_FAILED', 'sealed secret did not authenticate')
  }

  static grantOpenFailed (): CryptoError {
    return new CryptoError('CRYPTO_GRANT_OPEN_FAILED', 'grant did not open with this key pair')
  }

  static tokenMalformed (rule: string): CryptoError {
    return new CryptoError('CRYPTO_TOKEN_MALFORMED', `token malformed: ${rule}`)
  }

  static tokenBadSignature (): CryptoError {
    return new CryptoError('CRYPTO_TOKEN_BAD_SIGNATURE', 'token signature does not verify')
  }

  static tokenExpired (): CryptoError {
    return new CryptoError('CRYPTO_TOKEN_EXPIRED', 'token expired')
  }

  static badPowDifficulty (): CryptoError {
    return new CryptoError('CRYPTO_BAD_POW_DIFFICULTY', 'difficulty must be an integer from 0 to 32')
  }

  static powExhausted (iterations: number): CryptoError {
    return new CryptoError('CRYPTO_POW_EXHAUSTED', `no proof-of-work solution in ${iterations} iterations`)
  }

  static escrowMalformed (rule: string): CryptoError {
    return new CryptoError('CRYPTO_ESCROW_MALFORMED', `escrow envelope malformed: ${rule}`)
  }

  static escrowOpenFailed (): CryptoError {
    return new CryptoError('CRYPTO_ESCROW_OPEN_FAILED', 'escrow did not open: wrong passphrase or edited envelope')
  }

  static escrowFingerprintMismatch (): CryptoError {
    return new CryptoError('CRYPTO_ESCROW_FINGERPRINT_MISMATCH', 'escrow fingerprint is not the expected one')
  }

  static badPairingCode (rule: string): CryptoError {
    return new CryptoError('CRYPTO_BAD_PAIRING_CODE', `pairing code ${rule}`)
  }
}

import { assertBytes, isPlainObject } from './bytes.js'
import { base64urlDecode, base64urlEncode, utf8Decode, utf8Encode } from './encoding.js'
import { CryptoError } from './errors.js'
import { sign, verify } from './primitives.js'

// Session and admin tokens (ARCHITECTURE.md "Login": "panel-signed Ed25519 over the exact
// payload bytes"; spec 1 "Authentication"; spec 3 checkSession):
//   token = base64url(payload JSON bytes) "." base64url(Ed25519 signature over those bytes)
// base64url is unpadded; `exp` is epoch milliseconds. The verifier checks the signature over
// the received bytes before parsing them, so nothing is ever re-serialized.

/** A token payload: any JSON object with a numeric `exp` (epoch milliseconds). */
export type TokenPayload = Record<string, unknown> & { exp: number }

/** Longest token accepted or produced (characters); real tokens are a few hundred. */
export const MAX_TOKEN_LENGTH = 8192

const SIGNATURE_BYTES = 64

/** Why `value` is not a token payload, or null when it is one. */
function payloadProblem (value: unknown): string | null {
  if (!isPlainObject(value)) return 'must be a JSON object'
  if (typeof value.exp !== 'number' || !Number.isFinite(value.exp)) return 'must carry exp as a finite number (epoch ms)'
  return null
}

/** Signs `payload` (serialized once with JSON.stringify) with a 64-byte Ed25519 secret key. */
export function signToken (payload: TokenPayload, secretKey: Uint8Array): string {
  if (!isPlainObject(payload)) throw CryptoError.badType('payload', 'a plain object')
  const problem = payloadProblem(payload)
  if (problem !== null) throw CryptoError.badInput('payload', problem)
  assertBytes('secretKey', secretKey, 64)
  let json: string
  try {
    json = JSON.stringify(payload)
  } catch (err) {
    throw CryptoError.badInput('payload', 'is not JSON-serializable', err)
  }
  const bytes = utf8Encode(json, 'payload')
  const token = base64urlEncode(bytes) + '.' + base64urlEncode(sign(bytes, secretKey))
  if (token.length > MAX_TOKEN_LENGTH) throw CryptoError.badInput('payload', `makes a token longer than ${MAX_TOKEN_LENGTH} characters`)
  return token
}

interface SplitToken {
  payloadBytes: Uint8Array
  signature: Uint8Array
}

function splitToken (token: unknown): SplitToken {
  if (typeof token !== 'string') throw CryptoError.tokenMalformed('not a string')
  if (token.length > MAX_TOKEN_LENGTH) throw CryptoError.tokenMalformed('too long')
  const parts = token.split('.')
  if (parts.length !== 2) throw CryptoError.tokenMalformed('expected <payload>.<signature>')
  const payloadBytes = base64urlDecode(parts[0] as string)
  const signature = base64urlDecode(parts[1] as string)
  if (payloadBytes === null || payloadBytes.length === 0) throw CryptoError.tokenMalformed('payload is not base64url')
  if (signature === null || signature.length !== SIGNATURE_BYTES) throw CryptoError.tokenMalformed('signature is not 64 bytes of base64url')
  return { payloadBytes, signature }
}

function parsePayload (bytes: Uint8Array): TokenPayload {
  let value: unknown
  try {
    value = JSON.parse(utf8Decode(bytes))
  } catch {
    throw CryptoError.tokenMalformed('payload is not UTF-8 JSON')
  }
  const problem = payloadProblem(value)
  if (problem !== null) throw CryptoError.tokenMalformed(`payload ${problem}`)
  return value as TokenPayload
}

/** Options of {@link verifyToken}. */
export interface VerifyTokenOptions {
  /** Clock in epoch ms; the token is valid while `now < exp`. Default `Date.now()`. */
  now?: number
}

/**
 * Verifies signature then expiry and returns the payload. Throws `CRYPTO_TOKEN_MALFORMED`,
 * `CRYPTO_TOKEN_BAD_SIGNATURE` or `CRYPTO_TOKEN_EXPIRED` (checked in that order).
 */
export function verifyToken (token: string, publicKey: Uint8Array, options: VerifyTokenOptions = {}): TokenPayload {
  assertBytes('publicKey', publicKey, 32)
  if (!isPlainObject(options)) throw CryptoError.badType('options', 'an object { now? }')
  const now = options.now ?? Date.now()
  if (typeof now !== 'number' || !Number.isFinite(now)) throw CryptoError.badInput('now', 'must be a finite number')
  const { payloadBytes, signature } = splitToken(token)
  if (!verify(payloadBytes, signature, publicKey)) throw CryptoError.tokenBadSignature()
  const payload = parsePayload(payloadBytes)
  if (!(now < payload.exp)) throw CryptoError.tokenExpired()
  return payload
}

/** The payload WITHOUT checking signature or expiry (for display and routing only). */
export function decodeTokenUnverified (token: string): TokenPayload {
  return parsePayload(splitToken(token).payloadBytes)
}

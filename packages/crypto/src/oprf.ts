import { ristretto255, ristretto255_hasher, ristretto255_oprf } from '@noble/curves/ed25519.js'
import { sha512 } from '@noble/hashes/sha2.js'
import { assertBytes, concatBytes } from './bytes.js'
import { utf8Encode } from './encoding.js'
import { CryptoError } from './errors.js'
import { randomBytes } from './primitives.js'

// RFC 9497 OPRF, mode 0x00 (base), suite ristretto255-SHA512 — see ARCHITECTURE.md "Login".
// DeriveKeyPair, BlindEvaluate and Finalize come from @noble/curves' RFC 9497 code. Blind is
// done here because noble's blind() cannot take a fixed blind scalar (the RFC test vectors
// need one); Evaluate because noble's typings omit it. Every input is checked first so that
// failures carry our codes.

const Point = ristretto255.Point
const Fn = Point.Fn
const suite = ristretto255_oprf.oprf

/** RFC 9497 §3.1: contextString = "OPRFV1-" ‖ I2OSP(mode = 0x00, 1) ‖ "-" ‖ "ristretto255-SHA512". */
const CONTEXT = concatBytes(utf8Encode('OPRFV1-'), Uint8Array.of(0x00), utf8Encode('-ristretto255-SHA512'))
/** RFC 9497 §4.1: HashToGroup uses DST "HashToGroup-" ‖ contextString. */
const HASH_TO_GROUP_DST = concatBytes(utf8Encode('HashToGroup-'), CONTEXT)

/** Bytes of a serialized ristretto255 element (Ne) and scalar (Ns); OPRF output length (Nh). */
export const OPRF_ELEMENT_BYTES = 32
export const OPRF_SCALAR_BYTES = 32
export const OPRF_OUTPUT_BYTES = 64
/** RFC 9497 §1.2: inputs and key info are length-prefixed with two bytes. */
const MAX_INPUT_BYTES = 0xffff

/** A server OPRF key pair: `sk` is a 32-byte scalar, `pk` a 32-byte element. */
export interface OprfKeyPair {
  sk: Uint8Array
  pk: Uint8Array
}

/** Result of the client's blind step: keep `blind` secret, send `blindedElement`. */
export interface OprfBlindResult {
  blind: Uint8Array
  blindedElement: Uint8Array
}

function checkInput (name: string, value: unknown): asserts value is Uint8Array {
  assertBytes(name, value)
  if (value.length > MAX_INPUT_BYTES) throw CryptoError.badLength(name, `at most ${MAX_INPUT_BYTES}`, value.length)
}

function parseScalar (name: string, bytes: unknown): bigint {
  assertBytes(name, bytes)
  if (bytes.length !== OPRF_SCALAR_BYTES) throw CryptoError.invalidScalar(name)
  let s: bigint
  try {
    s = Fn.fromBytes(bytes)
  } catch (err) {
    throw CryptoError.invalidScalar(name, err)
  }
  if (s === 0n) throw CryptoError.invalidScalar(name)
  return s
}

function checkPoint (name: string, bytes: unknown): asserts bytes is Uint8Array {
  assertBytes(name, bytes)
  if (bytes.length !== OPRF_ELEMENT_BYTES) throw CryptoError.invalidPoint(name)
  let p
  try {
    p = Point.fromBytes(bytes)
  } catch (err) {
    throw CryptoError.invalidPoint(name, err)
  }
  // RFC 9497 §3.3: the identity element received over the wire MUST be rejected.
  if (p.equals(Point.ZERO)) throw CryptoError.invalidPoint(name)
}

const FINALIZE = utf8Encode('Finalize')

function u16 (n: number): Uint8Array {
  return Uint8Array.of(n >> 8, n & 0xff)
}

function hashToGroup (input: Uint8Array): ReturnType<typeof Point.fromBytes> {
  const element = ristretto255_hasher.hashToCurve(input, { DST: HASH_TO_GROUP_DST })
  // Practically unreachable (needs a hash preimage of the identity), but RFC 9497 §3.3.1 says check.
  if (element.equals(Point.ZERO)) throw CryptoError.badInput('input', 'maps to the identity element')
  return element
}

/** A uniformly random non-zero scalar: 64 random bytes reduced mod the group order. */
function randomScalar (): bigint {
  for (;;) {
    const bytes = randomBytes(64)
    let x = 0n
    for (let i = bytes.length - 1; i >= 0; i--) x = (x << 8n) | BigInt(bytes[i] as number)
    const s = x % Fn.ORDER
    if (s !== 0n) return s
  }
}

/** RFC 9497 OPRF (mode 0x00, ristretto255-SHA512). All values are raw bytes. */
export const oprf = Object.freeze({
  /** RFC 9497 §3.2.1 DeriveKeyPair: deterministic server key from a 32-byte seed and key info. */
  deriveKeyPair (seed: Uint8Array, info: Uint8Array): OprfKeyPair {
    assertBytes('seed', seed, 32)
    checkInput('info', info)
    const { secretKey, publicKey } = suite.deriveKeyPair(seed, info)
    return { sk: secretKey, pk: publicKey }
  },

  /**
   * Client step 1. `blind` (a 32-byte scalar) may be fixed for tests; by default it is random.
   * Throws `CRYPTO_INVALID_SCALAR` for a zero or unreduced blind.
   */
  blind (input: Uint8Array, blind?: Uint8Array): OprfBlindResult {
    checkInput('input', input)
    const r = blind === undefined ? randomScalar() : parseScalar('blind', blind)
    return { blind: Fn.toBytes(r), blindedElement: hashToGroup(input).multiply(r).toBytes() }
  },

  /** Server step: multiplies the client's blinded element by `sk`. Rejects bad points/scalars. */
  blindEvaluate (sk: Uint8Array, blindedElement: Uint8Array): Uint8Array {
    parseScalar('sk', sk)
    checkPoint('blindedElement', blindedElement)
    return suite.blindEvaluate(sk, blindedElement)
  },

  /** Client step 2: unblinds and hashes to the 64-byte OPRF output. */
  finalize (input: Uint8Array, blind: Uint8Array, evaluatedElement: Uint8Array): Uint8Array {
    checkInput('input', input)
    parseScalar('blind', blind)
    checkPoint('evaluatedElement', evaluatedElement)
    return suite.finalize(input, blind, evaluatedElement)
  },

  /** Non-interactive evaluation by the key holder: equals blind → blindEvaluate → finalize. */
  evaluate (sk: Uint8Array, input: Uint8Array): Uint8Array {
    const k = parseScalar('sk', sk)
    checkInput('input', input)
    const unblinded = hashToGroup(input).multiply(k).toBytes()
    // RFC 9497 §3.3.1 Finalize: Hash(I2OSP(len(input), 2) ‖ input ‖ I2OSP(len(element), 2) ‖ element ‖ "Finalize")
    return sha512(concatBytes(u16(input.length), input, u16(unblinded.length), unblinded, FINALIZE))
  }
})

import sodium from 'sodium-native'
import { assertBytes, isPlainObject } from './bytes.js'
import { CryptoError } from './errors.js'
import { randomBytes } from './primitives.js'

// Proof of work for the viewer `hello` → `login` RPC (spec 1 "Peer-to-peer RPC": hello;
// ARCHITECTURE.md "Login"): BLAKE2b-256(challenge ‖ nonce) must start with `difficulty`
// zero bits. The panel rotates the challenge after each use; this module only does the math.

/** Length of a challenge from {@link createPowChallenge}. */
export const POW_CHALLENGE_BYTES = 32
/** Length of a nonce from {@link solvePow}. */
export const POW_NONCE_BYTES = 8
/** Largest accepted difficulty (leading zero bits). */
export const POW_MAX_DIFFICULTY = 32
/** Nonce lengths {@link verifyPow} accepts (other solvers may use other widths). */
const NONCE_MIN = 1
const NONCE_MAX = 32
/** Default budget: 64 × the expected 2^difficulty tries, so failing by chance has odds ≈ e^-64. */
const DEFAULT_BUDGET_FACTOR = 64

function checkDifficulty (difficulty: unknown): asserts difficulty is number {
  if (typeof difficulty !== 'number' || !Number.isInteger(difficulty) || difficulty < 0 || difficulty > POW_MAX_DIFFICULTY) {
    throw CryptoError.badPowDifficulty()
  }
}

function hasLeadingZeroBits (hash: Uint8Array, difficulty: number): boolean {
  const full = difficulty >> 3
  for (let i = 0; i < full; i++) if (hash[i] !== 0) return false
  const rest = difficulty & 7
  return rest === 0 || ((hash[full] as number) >> (8 - rest)) === 0
}

/** 32 random bytes for the panel to hand out in `hello`. */
export function createPowChallenge (): Uint8Array {
  return randomBytes(POW_CHALLENGE_BYTES)
}

/** Options of {@link solvePow}. */
export interface SolvePowOptions {
  /** Give up (throw `CRYPTO_POW_EXHAUSTED`) after this many tries. Default 64 × 2^difficulty. */
  maxIterations?: number
}

/**
 * Finds an 8-byte nonce (a little-endian counter from 0) meeting `difficulty` (0–32). Runs
 * synchronously; expected work is 2^difficulty BLAKE2b calls.
 */
export function solvePow (challenge: Uint8Array, difficulty: number, options: SolvePowOptions = {}): Uint8Array {
  assertBytes('challenge', challenge, POW_CHALLENGE_BYTES)
  checkDifficulty(difficulty)
  if (!isPlainObject(options)) throw CryptoError.badType('options', 'an object { maxIterations? }')
  const maxIterations = options.maxIterations ?? Math.min(Number.MAX_SAFE_INTEGER, DEFAULT_BUDGET_FACTOR * 2 ** difficulty)
  if (typeof maxIterations !== 'number' || !Number.isSafeInteger(maxIterations) || maxIterations < 1) {
    throw CryptoError.badInput('maxIterations', 'must be a positive integer')
  }
  const input = new Uint8Array(POW_CHALLENGE_BYTES + POW_NONCE_BYTES)
  input.set(challenge, 0)
  const nonce = input.subarray(POW_CHALLENGE_BYTES)
  const view = new DataView(input.buffer, input.byteOffset + POW_CHALLENGE_BYTES, POW_NONCE_BYTES)
  const hash = new Uint8Array(32)
  for (let i = 0; i < maxIterations; i++) {
    view.setUint32(0, i % 0x100000000, true)
    view.setUint32(4, Math.floor(i / 0x100000000), true)
    sodium.crypto_generichash(hash, input)
    if (hasLeadingZeroBits(hash, difficulty)) return nonce.slice()
  }
  throw CryptoError.powExhausted(maxIterations)
}

/**
 * True when BLAKE2b-256(challenge ‖ nonce) has at least `difficulty` leading zero bits. A
 * nonce outside 1–32 bytes returns false (it comes from a peer); wrong types, a challenge
 * that is not 32 bytes, or a difficulty outside 0–32 throw.
 */
export function verifyPow (challenge: Uint8Array, nonce: Uint8Array, difficulty: number): boolean {
  assertBytes('challenge', challenge, POW_CHALLENGE_BYTES)
  assertBytes('nonce', nonce)
  checkDifficulty(difficulty)
  if (nonce.length < NONCE_MIN || nonce.length > NONCE_MAX) return false
  const input = new Uint8Array(challenge.length + nonce.length)
  input.set(challenge, 0)
  input.set(nonce, challenge.length)
  const hash = new Uint8Array(32)
  sodium.crypto_generichash(hash, input)
  return hasLeadingZeroBits(hash, difficulty)
}

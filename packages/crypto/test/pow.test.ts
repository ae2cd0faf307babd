import { blake2b } from '@noble/hashes/blake2.js'
import { describe, expect, it } from 'vitest'
import { POW_NONCE_BYTES, createPowChallenge, fromHex, solvePow, verifyPow } from '@arus/crypto'
import { codeOf } from './helpers.js'

/** Leading zero bits of BLAKE2b-256(challenge ‖ nonce), computed independently with @noble/hashes. */
function leadingZeroBits (challenge: Uint8Array, nonce: Uint8Array): number {
  const digest = blake2b.create({ dkLen: 32 }).update(challenge).update(nonce).digest()
  let bits = 0
  for (const byte of digest) {
    if (byte === 0) { bits += 8; continue }
    return bits + Math.clz32(byte) - 24
  }
  return bits
}

describe('proof of work', () => {
  it('challenges are 32 random bytes', () => {
    const a = createPowChallenge()
    expect(a).toHaveLength(32)
    expect(Buffer.from(a).equals(Buffer.from(createPowChallenge()))).toBe(false)
  })

  it('solvePow finds an 8-byte nonce that verifyPow accepts, for several difficulties', () => {
    const challenge = createPowChallenge()
    for (const difficulty of [0, 1, 4, 8, 12]) {
      const nonce = solvePow(challenge, difficulty)
      expect(nonce).toHaveLength(POW_NONCE_BYTES)
      expect(verifyPow(challenge, nonce, difficulty)).toBe(true)
      expect(leadingZeroBits(challenge, nonce)).toBeGreaterThanOrEqual(difficulty)
    }
  })

  it('verifyPow matches an independent BLAKE2b-256 over challenge ‖ nonce exactly at the boundary', () => {
    const challenge = fromHex('11'.repeat(32))
    for (let i = 0; i < 64; i++) {
      const nonce = Uint8Array.of(i, 1, 2)
      const zeros = leadingZeroBits(challenge, nonce)
      expect(verifyPow(challenge, nonce, Math.min(zeros, 32))).toBe(true)
      if (zeros < 32) expect(verifyPow(challenge, nonce, zeros + 1)).toBe(false)
    }
  })

  it('a solution for one challenge is (almost surely) not one for another at difficulty 16', () => {
    const a = createPowChallenge()
    const nonce = solvePow(a, 16)
    let accepted = 0
    for (let i = 0; i < 8; i++) if (verifyPow(createPowChallenge(), nonce, 16)) accepted++
    expect(accepted).toBeLessThan(2) // each has probability 2^-16
  })

  it('accepts nonces of 1-32 bytes and returns false (never throws) outside that', () => {
    const challenge = createPowChallenge()
    expect(verifyPow(challenge, new Uint8Array(32), 0)).toBe(true)
    expect(verifyPow(challenge, new Uint8Array(1), 0)).toBe(true)
    expect(verifyPow(challenge, new Uint8Array(0), 0)).toBe(false)
    expect(verifyPow(challenge, new Uint8Array(33), 0)).toBe(false)
  })

  it('validates difficulty, challenge and maxIterations', () => {
    const challenge = createPowChallenge()
    for (const d of [-1, 33, 1.5, Number.NaN, '8']) {
      expect(codeOf(() => solvePow(challenge, d as number))).toBe('CRYPTO_BAD_POW_DIFFICULTY')
      expect(codeOf(() => verifyPow(challenge, new Uint8Array(8), d as number))).toBe('CRYPTO_BAD_POW_DIFFICULTY')
    }
    expect(codeOf(() => solvePow(new Uint8Array(31), 1))).toBe('CRYPTO_BAD_LENGTH')
    expect(codeOf(() => verifyPow(challenge, 'nonce' as never, 1))).toBe('CRYPTO_BAD_TYPE')
    expect(codeOf(() => solvePow(challenge, 1, { maxIterations: 0 }))).toBe('CRYPTO_BAD_INPUT')
    expect(codeOf(() => solvePow(challenge, 1, null as never))).toBe('CRYPTO_BAD_TYPE')
    // Difficulty 32 within 3 tries fails unless a 2^-32 event happens; the code must be EXHAUSTED.
    expect(codeOf(() => solvePow(challenge, 32, { maxIterations: 3 }))).toBe('CRYPTO_POW_EXHAUSTED')
  })
})

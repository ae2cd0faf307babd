import { describe, expect, it } from 'vitest'
import { blake2b256, generateSigningKeyPair, normalizePairingCode, pairingCode, pairingCodeMatches } from '@arus/crypto'
import { codeOf } from './helpers.js'

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

/** Reference: the top 60 bits of BLAKE2b-256(tag ‖ key) as 12 base32 characters. */
function reference (key: Uint8Array): string {
  const digest = blake2b256(new Uint8Array([...new TextEncoder().encode('arus/v1/pairing-code'), ...key]))
  const bits = [...digest.subarray(0, 8)].map((b) => b.toString(2).padStart(8, '0')).join('').slice(0, 60)
  let out = ''
  for (let i = 0; i < 60; i += 5) out += BASE32[parseInt(bits.slice(i, i + 5), 2)]
  return `${out.slice(0, 4)}-${out.slice(4, 8)}-${out.slice(8)}`
}

describe('pairing codes', () => {
  const key = generateSigningKeyPair().publicKey

  it('is XXXX-XXXX-XXXX over A-Z2-7, deterministic, and the top 60 bits of the tagged BLAKE2b-256', () => {
    const code = pairingCode(key)
    expect(code).toMatch(/^[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}$/)
    expect(pairingCode(key)).toBe(code)
    expect(code).toBe(reference(key))
    expect(pairingCode(generateSigningKeyPair().publicKey)).not.toBe(code)
  })

  it('normalizes case, spaces, dashes and the digits 0/1/8', () => {
    expect(normalizePairingCode('abcd efgh ijkl')).toBe('ABCD-EFGH-IJKL')
    expect(normalizePairingCode('  ab-cd-ef-gh-ij-kl ')).toBe('ABCD-EFGH-IJKL')
    expect(normalizePairingCode('ABCDEFGHIJKL')).toBe('ABCD-EFGH-IJKL')
    expect(normalizePairingCode('0OI1-8B23-4567')).toBe('OOII-BB23-4567')
    const code = pairingCode(key)
    expect(normalizePairingCode(code.toLowerCase().replaceAll('-', ' '))).toBe(code)
  })

  it('throws CRYPTO_BAD_PAIRING_CODE for wrong length or characters', () => {
    for (const bad of ['', 'ABCD-EFGH-IJK', 'ABCD-EFGH-IJKLM', 'ABCD-EFGH-IJK9', 'ABCD_EFGH_IJKL', 'ÀBCD-EFGH-IJKL', 'straße-abcd-ef', 'A'.repeat(65)]) {
      expect(codeOf(() => normalizePairingCode(bad)), bad).toBe('CRYPTO_BAD_PAIRING_CODE')
    }
    expect(codeOf(() => normalizePairingCode(12 as never))).toBe('CRYPTO_BAD_TYPE')
  })

  it('pairingCodeMatches accepts any normalizable form of the right code only', () => {
    const code = pairingCode(key)
    expect(pairingCodeMatches(key, code)).toBe(true)
    expect(pairingCodeMatches(key, code.toLowerCase().replaceAll('-', ''))).toBe(true)
    expect(pairingCodeMatches(generateSigningKeyPair().publicKey, code)).toBe(false)
    expect(pairingCodeMatches(key, 'not a code')).toBe(false)
    expect(codeOf(() => pairingCodeMatches(new Uint8Array(31), code))).toBe('CRYPTO_BAD_LENGTH')
    expect(codeOf(() => pairingCode(new Uint8Array(33)))).toBe('CRYPTO_BAD_LENGTH')
  })
})

import { describe, expect, it } from 'vitest'
import { GRANT_BYTES, boxKeyPair, openGrant, openSecret, randomBytes, sealGrant, sealSecret, toHex } from '@arus/crypto'
import { codeOf } from './helpers.js'

describe('sealSecret / openSecret', () => {
  const key = randomBytes(32)

  it('round-trips as lowercase hex of nonce (24) ‖ ciphertext (16 + n), with a fresh nonce each time', () => {
    const secret = randomBytes(32)
    const a = sealSecret(key, secret)
    const b = sealSecret(key, secret)
    expect(a).toMatch(/^[0-9a-f]+$/)
    expect(a).toHaveLength(2 * (24 + 16 + 32))
    expect(a.slice(0, 48)).not.toBe(b.slice(0, 48))
    expect(toHex(openSecret(key, a))).toBe(toHex(secret))
    expect(openSecret(key, sealSecret(key, new Uint8Array(0)))).toHaveLength(0)
  })

  it('fails with CRYPTO_OPEN_FAILED on a wrong key, a flipped bit or truncation', () => {
    const sealed = sealSecret(key, Uint8Array.of(1, 2, 3))
    expect(codeOf(() => openSecret(randomBytes(32), sealed))).toBe('CRYPTO_OPEN_FAILED')
    for (const pos of [0, 50, sealed.length - 1]) {
      const flipped = sealed.slice(0, pos) + (sealed[pos] === '0' ? '1' : '0') + sealed.slice(pos + 1)
      expect(codeOf(() => openSecret(key, flipped))).toBe('CRYPTO_OPEN_FAILED')
    }
    expect(codeOf(() => openSecret(key, sealed.slice(0, 78)))).toBe('CRYPTO_OPEN_FAILED')
  })

  it('validates arguments', () => {
    expect(codeOf(() => sealSecret(new Uint8Array(16), Uint8Array.of(1)))).toBe('CRYPTO_BAD_LENGTH')
    expect(codeOf(() => sealSecret(key, 'x' as never))).toBe('CRYPTO_BAD_TYPE')
    expect(codeOf(() => openSecret(key, 'zz'))).toBe('CRYPTO_BAD_HEX')
    expect(codeOf(() => openSecret(key, 42 as never))).toBe('CRYPTO_BAD_TYPE')
  })
})

describe('sealGrant / openGrant', () => {
  it('seals a stream key to the user X25519 key and only that key pair opens it', () => {
    const user = boxKeyPair()
    const other = boxKeyPair()
    const streamKey = randomBytes(32)
    const grant = sealGrant(streamKey, user.publicKey)
    expect(grant).toMatch(/^[0-9a-f]+$/)
    expect(grant).toHaveLength(2 * GRANT_BYTES)
    expect(sealGrant(streamKey, user.publicKey)).not.toBe(grant) // ephemeral sender key
    expect(toHex(openGrant(grant, user.publicKey, user.secretKey))).toBe(toHex(streamKey))
    expect(codeOf(() => openGrant(grant, other.publicKey, other.secretKey))).toBe('CRYPTO_GRANT_OPEN_FAILED')
    const tampered = (grant[100] === 'a' ? 'b' : 'a')
    expect(codeOf(() => openGrant(grant.slice(0, 100) + tampered + grant.slice(101), user.publicKey, user.secretKey))).toBe('CRYPTO_GRANT_OPEN_FAILED')
  })

  it('validates arguments', () => {
    const user = boxKeyPair()
    expect(codeOf(() => sealGrant(new Uint8Array(16), user.publicKey))).toBe('CRYPTO_BAD_LENGTH')
    expect(codeOf(() => sealGrant(randomBytes(32), new Uint8Array(33)))).toBe('CRYPTO_BAD_LENGTH')
    // Low-order X25519 points (libsodium refuses them) surface as a coded error, not sodium's own.
    expect(codeOf(() => sealGrant(randomBytes(32), new Uint8Array(32)))).toBe('CRYPTO_BAD_INPUT')
    expect(codeOf(() => sealGrant(randomBytes(32), Uint8Array.of(1, ...new Uint8Array(31))))).toBe('CRYPTO_BAD_INPUT')
    const grant = sealGrant(randomBytes(32), user.publicKey)
    expect(codeOf(() => openGrant(grant.slice(2), user.publicKey, user.secretKey))).toBe('CRYPTO_BAD_HEX')
    expect(codeOf(() => openGrant(grant, user.publicKey, new Uint8Array(64)))).toBe('CRYPTO_BAD_LENGTH')
  })
})

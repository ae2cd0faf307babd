import { describe, expect, it } from 'vitest'
import {
  blake2b256,
  boxKeyPair,
  constantTimeEqual,
  fromHex,
  generateSigningKeyPair,
  newSalt,
  randomBytes,
  sign,
  toHex,
  verify
} from '@arus/crypto'
import { codeOf } from './helpers.js'

describe('hex', () => {
  it('round-trips lowercase and accepts uppercase', () => {
    const bytes = Uint8Array.of(0, 1, 0x7f, 0x80, 0xab, 0xff)
    expect(toHex(bytes)).toBe('00017f80abff')
    expect(fromHex('00017f80abff')).toEqual(bytes)
    expect(fromHex('00017F80ABFF')).toEqual(bytes)
    expect(fromHex('', 0)).toEqual(new Uint8Array(0))
    expect(fromHex('abcd', 2)).toEqual(Uint8Array.of(0xab, 0xcd))
  })

  it('throws CRYPTO_BAD_HEX for odd length, stray characters and wrong decoded length', () => {
    for (const bad of ['a', 'zz', '0x00', 'ab cd', 'abé0']) expect(codeOf(() => fromHex(bad)), bad).toBe('CRYPTO_BAD_HEX')
    expect(codeOf(() => fromHex('abcd', 3))).toBe('CRYPTO_BAD_HEX')
    expect(codeOf(() => fromHex(12 as never))).toBe('CRYPTO_BAD_TYPE')
    expect(codeOf(() => toHex('ab' as never))).toBe('CRYPTO_BAD_TYPE')
  })
})

describe('constantTimeEqual', () => {
  it('compares contents and lengths', () => {
    expect(constantTimeEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 2))).toBe(true)
    expect(constantTimeEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 3))).toBe(false)
    expect(constantTimeEqual(Uint8Array.of(1, 2), Uint8Array.of(1))).toBe(false)
    expect(constantTimeEqual(new Uint8Array(0), new Uint8Array(0))).toBe(true)
    expect(codeOf(() => constantTimeEqual([1] as never, Uint8Array.of(1)))).toBe('CRYPTO_BAD_TYPE')
  })
})

describe('randomness and keys', () => {
  it('randomBytes / newSalt / boxKeyPair give fresh values of the right size', () => {
    expect(randomBytes(0)).toHaveLength(0)
    expect(toHex(randomBytes(32))).not.toBe(toHex(randomBytes(32)))
    expect(newSalt()).toHaveLength(16)
    const box = boxKeyPair()
    expect(box.publicKey).toHaveLength(32)
    expect(box.secretKey).toHaveLength(32)
    expect(codeOf(() => randomBytes(-1))).toBe('CRYPTO_BAD_INPUT')
    expect(codeOf(() => randomBytes(1.5))).toBe('CRYPTO_BAD_INPUT')
    expect(codeOf(() => randomBytes('8' as never))).toBe('CRYPTO_BAD_TYPE')
  })

  it('Ed25519 matches RFC 8032 test 1 and verify never throws on bad lengths', () => {
    const kp = generateSigningKeyPair(fromHex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60'))
    expect(toHex(kp.publicKey)).toBe('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a')
    expect(kp.secretKey).toHaveLength(64)
    const sig = sign(new Uint8Array(0), kp.secretKey)
    expect(toHex(sig)).toBe('e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b')
    expect(verify(new Uint8Array(0), sig, kp.publicKey)).toBe(true)
    expect(verify(Uint8Array.of(0), sig, kp.publicKey)).toBe(false)
    expect(verify(new Uint8Array(0), sig.subarray(0, 63), kp.publicKey)).toBe(false)
    expect(verify(new Uint8Array(0), new Uint8Array(65), kp.publicKey)).toBe(false)
    expect(verify(new Uint8Array(0), sig, kp.publicKey.subarray(0, 31))).toBe(false)
    expect(verify(new Uint8Array(0), sig, new Uint8Array(0))).toBe(false)
    expect(codeOf(() => verify('m' as never, sig, kp.publicKey))).toBe('CRYPTO_BAD_TYPE')
    expect(codeOf(() => verify(new Uint8Array(0), toHex(sig) as never, kp.publicKey))).toBe('CRYPTO_BAD_TYPE')
    expect(codeOf(() => sign(new Uint8Array(0), kp.publicKey))).toBe('CRYPTO_BAD_LENGTH')
    expect(codeOf(() => generateSigningKeyPair(new Uint8Array(31)))).toBe('CRYPTO_BAD_LENGTH')
    expect(toHex(generateSigningKeyPair().publicKey)).not.toBe(toHex(generateSigningKeyPair().publicKey))
  })

  it('blake2b256 matches the known empty-input digest and supports 16-64 byte keys', () => {
    expect(toHex(blake2b256(new Uint8Array(0)))).toBe('0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8')
    const keyed = blake2b256(Uint8Array.of(1), new Uint8Array(16))
    expect(keyed).toHaveLength(32)
    expect(toHex(keyed)).not.toBe(toHex(blake2b256(Uint8Array.of(1))))
    expect(codeOf(() => blake2b256(Uint8Array.of(1), new Uint8Array(15)))).toBe('CRYPTO_BAD_LENGTH')
    expect(codeOf(() => blake2b256(Uint8Array.of(1), new Uint8Array(65)))).toBe('CRYPTO_BAD_LENGTH')
  })
})

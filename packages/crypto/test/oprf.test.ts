import { describe, expect, it } from 'vitest'
import { fromHex, oprf, toHex } from '@arus/crypto'
import { codeOf } from './helpers.js'

// RFC 9497 Appendix A.1.1: OPRF(ristretto255, SHA-512), mode 0x00.
const SEED = fromHex('a3'.repeat(32))
const KEY_INFO = fromHex('74657374206b6579') // "test key"
const SK_SM = '5ebcea5ee37023ccb9fc2d2019f9d7737be85591ae8652ffa9ef0f4d37063b0e'
const BLIND = '64d37aed22a27f5191de1c1d69fadb899d8862b58eb4220029e036ec4c1f6706'
const VECTORS = [
  {
    name: 'Test Vector 1, Batch Size 1',
    input: '00',
    blindedElement: '609a0ae68c15a3cf6903766461307e5c8bb2f95e7e6550e1ffa2dc99e412803c',
    evaluationElement: '7ec6578ae5120958eb2db1745758ff379e77cb64fe77b0b2d8cc917ea0869c7e',
    output: '527759c3d9366f277d8c6020418d96bb393ba2afb20ff90df23fb7708264e2f3ab9135e3bd69955851de4b1f9fe8a0973396719b7912ba9ee8aa7d0b5e24bcf6'
  },
  {
    name: 'Test Vector 2, Batch Size 1',
    input: '5a'.repeat(17),
    blindedElement: 'da27ef466870f5f15296299850aa088629945a17d1f5b7f5ff043f76b3c06418',
    evaluationElement: 'b4cbf5a4f1eeda5a63ce7b77c7d23f461db3fcab0dd28e4e17cecb5c90d02c25',
    output: 'f4a74c9c592497375e796aa837e907b1a045d34306a749db9f34221f7e750cb4f2a6413a6bf6fa5e19ba6348eb673934a722a7ede2e7621306d18951e7cf2c73'
  }
]

describe('RFC 9497 A.1.1 OPRF(ristretto255, SHA-512) vectors', () => {
  it('DeriveKeyPair reproduces skSm', () => {
    const { sk, pk } = oprf.deriveKeyPair(SEED, KEY_INFO)
    expect(toHex(sk)).toBe(SK_SM)
    expect(pk).toHaveLength(32)
  })

  for (const v of VECTORS) {
    it(`${v.name}: blind, blindEvaluate, finalize, evaluate byte for byte`, () => {
      const { sk } = oprf.deriveKeyPair(SEED, KEY_INFO)
      const input = fromHex(v.input)
      const { blind, blindedElement } = oprf.blind(input, fromHex(BLIND))
      expect(toHex(blind)).toBe(BLIND)
      expect(toHex(blindedElement)).toBe(v.blindedElement)
      const evaluated = oprf.blindEvaluate(sk, blindedElement)
      expect(toHex(evaluated)).toBe(v.evaluationElement)
      expect(toHex(oprf.finalize(input, blind, evaluated))).toBe(v.output)
      expect(toHex(oprf.evaluate(sk, input))).toBe(v.output)
    })
  }
})

describe('oprf with random blinds', () => {
  it('gives the same output as evaluate, with a fresh blind each time', () => {
    const { sk } = oprf.deriveKeyPair(new Uint8Array(32).fill(7), new Uint8Array(0))
    const input = new TextEncoder().encode('correct horse battery staple')
    const a = oprf.blind(input)
    const b = oprf.blind(input)
    expect(toHex(a.blind)).not.toBe(toHex(b.blind))
    expect(toHex(a.blindedElement)).not.toBe(toHex(b.blindedElement))
    const outA = oprf.finalize(input, a.blind, oprf.blindEvaluate(sk, a.blindedElement))
    const outB = oprf.finalize(input, b.blind, oprf.blindEvaluate(sk, b.blindedElement))
    expect(outA).toHaveLength(64)
    expect(toHex(outA)).toBe(toHex(outB))
    expect(toHex(outA)).toBe(toHex(oprf.evaluate(sk, input)))
  })

  it('differs per key and per input', () => {
    const k1 = oprf.deriveKeyPair(new Uint8Array(32).fill(1), new Uint8Array(0)).sk
    const k2 = oprf.deriveKeyPair(new Uint8Array(32).fill(2), new Uint8Array(0)).sk
    const x = Uint8Array.of(1)
    expect(toHex(oprf.evaluate(k1, x))).not.toBe(toHex(oprf.evaluate(k2, x)))
    expect(toHex(oprf.evaluate(k1, x))).not.toBe(toHex(oprf.evaluate(k1, Uint8Array.of(2))))
  })
})

describe('oprf input validation', () => {
  const { sk } = oprf.deriveKeyPair(SEED, KEY_INFO)
  const good = oprf.blind(Uint8Array.of(0), fromHex(BLIND))
  const ORDER_LE = 'edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010'
  const nonCanonical = fromHex('ff'.repeat(32))
  const identity = new Uint8Array(32)

  it('rejects invalid scalars with CRYPTO_INVALID_SCALAR', () => {
    for (const bad of [new Uint8Array(32), fromHex(ORDER_LE), fromHex('ff'.repeat(32)), new Uint8Array(31), new Uint8Array(33)]) {
      expect(codeOf(() => oprf.blindEvaluate(bad, good.blindedElement))).toBe('CRYPTO_INVALID_SCALAR')
      expect(codeOf(() => oprf.blind(Uint8Array.of(0), bad))).toBe('CRYPTO_INVALID_SCALAR')
      expect(codeOf(() => oprf.finalize(Uint8Array.of(0), bad, good.blindedElement))).toBe('CRYPTO_INVALID_SCALAR')
      expect(codeOf(() => oprf.evaluate(bad, Uint8Array.of(0)))).toBe('CRYPTO_INVALID_SCALAR')
    }
  })

  it('rejects non-canonical encodings, the identity and wrong lengths with CRYPTO_INVALID_POINT', () => {
    // s = p is an unreduced field element; s = 1 is odd, i.e. "negative", which RFC 9496 rejects.
    const unreduced = fromHex('edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f')
    const negative = fromHex('01' + '00'.repeat(31))
    for (const bad of [nonCanonical, unreduced, identity, negative, new Uint8Array(31), new Uint8Array(33)]) {
      expect(codeOf(() => oprf.blindEvaluate(sk, bad))).toBe('CRYPTO_INVALID_POINT')
      expect(codeOf(() => oprf.finalize(Uint8Array.of(0), good.blind, bad))).toBe('CRYPTO_INVALID_POINT')
    }
  })

  it('rejects wrong types, seeds and oversized inputs', () => {
    expect(codeOf(() => oprf.blind('00' as unknown as Uint8Array))).toBe('CRYPTO_BAD_TYPE')
    expect(codeOf(() => oprf.blindEvaluate(toHex(sk) as unknown as Uint8Array, good.blindedElement))).toBe('CRYPTO_BAD_TYPE')
    expect(codeOf(() => oprf.deriveKeyPair(new Uint8Array(31), KEY_INFO))).toBe('CRYPTO_BAD_LENGTH')
    expect(codeOf(() => oprf.deriveKeyPair(SEED, 'info' as unknown as Uint8Array))).toBe('CRYPTO_BAD_TYPE')
    expect(codeOf(() => oprf.blind(new Uint8Array(0x10000)))).toBe('CRYPTO_BAD_LENGTH')
    expect(codeOf(() => oprf.evaluate(sk, new Uint8Array(0x10000)))).toBe('CRYPTO_BAD_LENGTH')
    expect(oprf.evaluate(sk, new Uint8Array(0xffff))).toHaveLength(64)
  })
})

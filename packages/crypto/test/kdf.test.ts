import { describe, expect, it } from 'vitest'
import {
  ARGON_LIMITS,
  DEFAULT_ARGON,
  TEST_ARGON,
  computeVerifier,
  deriveAuthKeyPair,
  deriveRwd,
  deriveUserOprfKey,
  deriveWrapKey,
  newSalt,
  oprf,
  sign,
  toHex,
  validateArgonCost,
  verify,
  verifyVerifier
} from '@arus/crypto'
import { codeOf, rejectionCode } from './helpers.js'

const MASTER = new Uint8Array(32).fill(9)
const rwdOf = (seed: number): Uint8Array => deriveRwd(new Uint8Array(64).fill(seed))

describe('deriveUserOprfKey', () => {
  it('is deterministic per (master seed, username) and matches DeriveKeyPair with info "arus-user:<name>"', () => {
    const a = deriveUserOprfKey(MASTER, 'alice')
    expect(toHex(a)).toBe(toHex(deriveUserOprfKey(MASTER, 'alice')))
    expect(toHex(a)).toBe(toHex(oprf.deriveKeyPair(MASTER, new TextEncoder().encode('arus-user:alice')).sk))
    expect(toHex(a)).not.toBe(toHex(deriveUserOprfKey(MASTER, 'bob')))
    expect(toHex(a)).not.toBe(toHex(deriveUserOprfKey(new Uint8Array(32).fill(8), 'alice')))
  })

  it('gives a usable key for a username that was never registered', () => {
    const sk = deriveUserOprfKey(MASTER, 'nobody-' + toHex(newSalt()))
    const { blindedElement } = oprf.blind(Uint8Array.of(1))
    expect(oprf.blindEvaluate(sk, blindedElement)).toHaveLength(32)
  })

  it('validates its inputs', () => {
    expect(codeOf(() => deriveUserOprfKey(new Uint8Array(31), 'a'))).toBe('CRYPTO_BAD_LENGTH')
    expect(codeOf(() => deriveUserOprfKey(MASTER, ''))).toBe('CRYPTO_BAD_INPUT')
    expect(codeOf(() => deriveUserOprfKey(MASTER, 42 as unknown as string))).toBe('CRYPTO_BAD_TYPE')
    expect(codeOf(() => deriveUserOprfKey(MASTER, 'a\uD800'))).toBe('CRYPTO_BAD_INPUT')
  })
})

describe('rwd, wrap key and auth key pair', () => {
  it('are 32-byte, deterministic and mutually independent', () => {
    const rwd = rwdOf(1)
    expect(rwd).toHaveLength(32)
    expect(toHex(rwd)).toBe(toHex(rwdOf(1)))
    expect(toHex(rwd)).not.toBe(toHex(rwdOf(2)))
    const wrap = deriveWrapKey(rwd)
    const auth = deriveAuthKeyPair(rwd)
    expect(wrap).toHaveLength(32)
    expect(auth.publicKey).toHaveLength(32)
    expect(auth.secretKey).toHaveLength(64)
    expect(toHex(wrap)).toBe(toHex(deriveWrapKey(rwd)))
    expect(toHex(auth.publicKey)).toBe(toHex(deriveAuthKeyPair(rwd).publicKey))
    const distinct = new Set([toHex(rwd), toHex(wrap), toHex(auth.secretKey.subarray(0, 32)), toHex(auth.publicKey)])
    expect(distinct.size).toBe(4)
    expect(toHex(deriveWrapKey(rwdOf(2)))).not.toBe(toHex(wrap))
  })

  it('auth key pair signs and verifies', () => {
    const auth = deriveAuthKeyPair(rwdOf(3))
    const msg = Uint8Array.of(1, 2, 3)
    expect(verify(msg, sign(msg, auth.secretKey), auth.publicKey)).toBe(true)
  })

  it('validate lengths', () => {
    expect(codeOf(() => deriveRwd(new Uint8Array(32)))).toBe('CRYPTO_BAD_LENGTH')
    expect(codeOf(() => deriveWrapKey(new Uint8Array(64)))).toBe('CRYPTO_BAD_LENGTH')
    expect(codeOf(() => deriveAuthKeyPair('x' as unknown as Uint8Array))).toBe('CRYPTO_BAD_TYPE')
  })
})

describe('Argon2id verifier', () => {
  it('has the documented defaults and libsodium-minimum test cost', () => {
    expect(DEFAULT_ARGON).toEqual({ opslimit: 3, memlimit: 64 * 1024 * 1024 })
    expect(TEST_ARGON).toEqual({ opslimit: ARGON_LIMITS.opslimitMin, memlimit: ARGON_LIMITS.memlimitMin })
    expect(TEST_ARGON).toEqual({ opslimit: 1, memlimit: 8192 })
    expect(Object.isFrozen(DEFAULT_ARGON)).toBe(true)
  })

  it('is deterministic, depends on rwd, salt and cost, and verifies', async () => {
    const rwd = rwdOf(4)
    const salt = newSalt()
    expect(salt).toHaveLength(16)
    const v = await computeVerifier(rwd, salt, TEST_ARGON)
    expect(v).toHaveLength(32)
    expect(toHex(await computeVerifier(rwd, salt, TEST_ARGON))).toBe(toHex(v))
    expect(toHex(await computeVerifier(rwdOf(5), salt, TEST_ARGON))).not.toBe(toHex(v))
    expect(toHex(await computeVerifier(rwd, newSalt(), TEST_ARGON))).not.toBe(toHex(v))
    expect(toHex(await computeVerifier(rwd, salt, { opslimit: 2, memlimit: 8192 }))).not.toBe(toHex(v))
    expect(await verifyVerifier(rwd, salt, TEST_ARGON, v)).toBe(true)
    expect(await verifyVerifier(rwdOf(5), salt, TEST_ARGON, v)).toBe(false)
    expect(await verifyVerifier(rwd, salt, TEST_ARGON, v.subarray(0, 31))).toBe(false)
  })

  it('rejects bad costs, salts and rwd', async () => {
    const rwd = rwdOf(6)
    const salt = newSalt()
    for (const cost of [
      { opslimit: 0, memlimit: 8192 },
      { opslimit: 1, memlimit: 8191 },
      { opslimit: 1.5, memlimit: 8192 },
      { opslimit: 1, memlimit: ARGON_LIMITS.memlimitMax + 1 },
      { opslimit: '1', memlimit: 8192 },
      { opslimit: 1 },
      null
    ]) {
      expect(await rejectionCode(computeVerifier(rwd, salt, cost as never))).toBe('CRYPTO_BAD_ARGON_COST')
    }
    expect(await rejectionCode(computeVerifier(rwd, new Uint8Array(15), TEST_ARGON))).toBe('CRYPTO_BAD_LENGTH')
    expect(await rejectionCode(computeVerifier(new Uint8Array(31), salt, TEST_ARGON))).toBe('CRYPTO_BAD_LENGTH')
    expect(await rejectionCode(verifyVerifier(rwd, salt, TEST_ARGON, 'v' as never))).toBe('CRYPTO_BAD_TYPE')
    expect(validateArgonCost({ opslimit: 3, memlimit: 65536 })).toEqual({ opslimit: 3, memlimit: 65536 })
    expect(codeOf(() => validateArgonCost({ opslimit: 5, memlimit: 65536 }, { opslimit: 4, memlimit: 65536 }))).toBe('CRYPTO_BAD_ARGON_COST')
  })
})

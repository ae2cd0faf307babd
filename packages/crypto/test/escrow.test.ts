import { describe, expect, it } from 'vitest'
import {
  DEFAULT_ARGON,
  ESCROW_MAX_COST,
  TEST_ARGON,
  blake2b256,
  generateSigningKeyPair,
  openEscrow,
  parseEscrowEnvelope,
  randomBytes,
  sealEscrow,
  toHex
} from '@arus/crypto'
import type { EscrowEnvelope } from '@arus/crypto'
import { codeOf, rejectionCode } from './helpers.js'

const identity = generateSigningKeyPair()
const fingerprint = toHex(blake2b256(identity.publicKey))
const secrets = new Uint8Array([...identity.secretKey, ...randomBytes(32)])
const PASS = 'tr0ub4dor & 3 — ünïcode'

async function seal (): Promise<EscrowEnvelope> {
  return await sealEscrow(secrets, PASS, { fingerprint, cost: TEST_ARGON })
}

describe('escrow envelope', () => {
  it('has the documented v1 shape, survives JSON, and opens with the passphrase', async () => {
    const env = await seal()
    expect(Object.keys(env).sort()).toEqual(['ciphertext', 'fingerprint', 'kdf', 'kind', 'nonce', 'v'])
    expect(env).toMatchObject({ v: 1, kind: 'arus-escrow', fingerprint, kdf: { alg: 'argon2id13', ...TEST_ARGON } })
    expect(env.kdf.salt).toMatch(/^[0-9a-f]{32}$/)
    expect(env.nonce).toMatch(/^[0-9a-f]{48}$/)
    expect(env.ciphertext).toMatch(/^[0-9a-f]+$/)
    expect(env.ciphertext).toHaveLength(2 * (secrets.length + 16))
    const reread = JSON.parse(JSON.stringify(env)) as EscrowEnvelope
    expect(toHex(await openEscrow(reread, PASS))).toBe(toHex(secrets))
    expect(toHex(await openEscrow(reread, PASS, { expectedFingerprint: fingerprint }))).toBe(toHex(secrets))
    expect(parseEscrowEnvelope(reread)).toEqual(env)
  })

  it('wrong passphrase: CRYPTO_ESCROW_OPEN_FAILED', async () => {
    const env = await seal()
    expect(await rejectionCode(openEscrow(env, PASS + ' '))).toBe('CRYPTO_ESCROW_OPEN_FAILED')
    expect(await rejectionCode(openEscrow(env, 'x'))).toBe('CRYPTO_ESCROW_OPEN_FAILED')
  })

  it('edited fingerprint, parameters, nonce or ciphertext are refused', async () => {
    const env = await seal()
    const flip = (hex: string): string => (hex[0] === '0' ? '1' : '0') + hex.slice(1)
    const edits: EscrowEnvelope[] = [
      { ...env, fingerprint: toHex(blake2b256(generateSigningKeyPair().publicKey)) },
      { ...env, kdf: { ...env.kdf, opslimit: env.kdf.opslimit + 1 } },
      { ...env, kdf: { ...env.kdf, salt: flip(env.kdf.salt) } },
      { ...env, nonce: flip(env.nonce) },
      { ...env, ciphertext: flip(env.ciphertext) }
    ]
    for (const edited of edits) {
      expect(await rejectionCode(openEscrow(edited, PASS))).toBe('CRYPTO_ESCROW_OPEN_FAILED')
    }
    expect(await rejectionCode(openEscrow(env, PASS, { expectedFingerprint: 'other' }))).toBe('CRYPTO_ESCROW_FINGERPRINT_MISMATCH')
    expect(await rejectionCode(openEscrow(env, PASS, null as never))).toBe('CRYPTO_BAD_TYPE')
  })

  it('rejects malformed envelopes with CRYPTO_ESCROW_MALFORMED', async () => {
    const env = await seal()
    const bad: unknown[] = [
      null, 'str', [], {},
      { ...env, v: 2 },
      { ...env, kind: 'other' },
      { ...env, extra: 1 },
      { ...env, fingerprint: '' },
      { ...env, fingerprint: 'has space' },
      { ...env, kdf: { ...env.kdf, alg: 'argon2i13' } },
      { ...env, kdf: { ...env.kdf, opslimit: 0 } },
      { ...env, kdf: { ...env.kdf, memlimit: ESCROW_MAX_COST.memlimit + 1 } },
      { ...env, kdf: { ...env.kdf, opslimit: ESCROW_MAX_COST.opslimit + 1 } },
      { ...env, kdf: { ...env.kdf, salt: env.kdf.salt.slice(2) } },
      { ...env, kdf: { ...env.kdf, extra: true } },
      { ...env, nonce: 'zz' + env.nonce.slice(2) },
      { ...env, ciphertext: env.ciphertext.slice(0, 32) },
      { ...env, ciphertext: 7 }
    ]
    for (const b of bad) {
      expect(codeOf(() => parseEscrowEnvelope(b)), JSON.stringify(b)?.slice(0, 60)).toBe('CRYPTO_ESCROW_MALFORMED')
      expect(await rejectionCode(openEscrow(b as EscrowEnvelope, PASS))).toBe('CRYPTO_ESCROW_MALFORMED')
    }
  })

  it('validates seal arguments; default cost is DEFAULT_ARGON', async () => {
    expect(await rejectionCode(sealEscrow(secrets, '', { fingerprint }))).toBe('CRYPTO_BAD_INPUT')
    expect(await rejectionCode(sealEscrow(secrets, PASS, { fingerprint: '' }))).toBe('CRYPTO_BAD_INPUT')
    expect(await rejectionCode(sealEscrow(new Uint8Array(0), PASS, { fingerprint }))).toBe('CRYPTO_BAD_LENGTH')
    expect(await rejectionCode(sealEscrow(secrets, PASS, { fingerprint, cost: { opslimit: 99, memlimit: 8192 } }))).toBe('CRYPTO_BAD_ARGON_COST')
    expect(await rejectionCode(sealEscrow(secrets, PASS, undefined as never))).toBe('CRYPTO_BAD_TYPE')
    const env = await sealEscrow(Uint8Array.of(1), PASS, { fingerprint })
    expect(env.kdf).toMatchObject(DEFAULT_ARGON)
  })
})

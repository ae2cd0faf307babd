import { describe, expect, it } from 'vitest'
import {
  TEST_ARGON,
  boxKeyPair,
  computeVerifier,
  deriveAuthKeyPair,
  deriveRwd,
  deriveUserOprfKey,
  deriveWrapKey,
  fromHex,
  newSalt,
  oprf,
  openGrant,
  openSecret,
  randomBytes,
  sealGrant,
  sealSecret,
  sign,
  toHex,
  verify,
  verifyVerifier
} from '@arus/crypto'
import { codeOf } from './helpers.js'

// The whole login math of ARCHITECTURE.md "Login", in one process: the "panel" only ever
// sees blinded elements and stored record fields; the "client" only the evaluation.

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s)
const MASTER_SEED = randomBytes(32)

/** Client side of one OPRF round against the panel's per-user key; returns rwd. */
function clientRwd (username: string, password: string): Uint8Array {
  const input = utf8(password)
  const { blind, blindedElement } = oprf.blind(input)
  // --- wire: (username, blindedElement) → panel
  const evaluated = oprf.blindEvaluate(deriveUserOprfKey(MASTER_SEED, username), blindedElement)
  // --- wire: evaluated → client
  return deriveRwd(oprf.finalize(input, blind, evaluated))
}

async function register (username: string, password: string) {
  const rwd = clientRwd(username, password)
  const salt = newSalt()
  const box = boxKeyPair()
  const auth = deriveAuthKeyPair(rwd)
  return {
    salt: toHex(salt),
    verifier: toHex(await computeVerifier(rwd, salt, TEST_ARGON)),
    argon: { ...TEST_ARGON },
    pub: toHex(box.publicKey),
    encPriv: sealSecret(deriveWrapKey(rwd), box.secretKey),
    authPub: toHex(auth.publicKey)
  }
}

describe('end-to-end login math', () => {
  it('right password: same rwd, verifier matches, keys unwrap, auth signature and grants work', async () => {
    const record = await register('alice', 'hunter2 correct horse')
    const streamKey = randomBytes(32)
    const wrapped = sealGrant(streamKey, fromHex(record.pub, 32)) // materialized without the password

    const rwd = clientRwd('alice', 'hunter2 correct horse') // fresh blind, same rwd
    expect(await verifyVerifier(rwd, fromHex(record.salt), record.argon, fromHex(record.verifier))).toBe(true)

    const secretKey = openSecret(deriveWrapKey(rwd), record.encPriv)
    expect(toHex(openGrant(wrapped, fromHex(record.pub), secretKey))).toBe(toHex(streamKey))

    const auth = deriveAuthKeyPair(rwd)
    expect(toHex(auth.publicKey)).toBe(record.authPub)
    const challenge = randomBytes(32)
    expect(verify(challenge, sign(challenge, auth.secretKey), fromHex(record.authPub))).toBe(true)
  })

  it('wrong password: verifier mismatch, encPriv does not open, auth key differs', async () => {
    const record = await register('bob', 'right password')
    const rwd = clientRwd('bob', 'wrong password')
    expect(await verifyVerifier(rwd, fromHex(record.salt), record.argon, fromHex(record.verifier))).toBe(false)
    expect(codeOf(() => openSecret(deriveWrapKey(rwd), record.encPriv))).toBe('CRYPTO_OPEN_FAILED')
    expect(toHex(deriveAuthKeyPair(rwd).publicKey)).not.toBe(record.authPub)
  })

  it('same password under another username gives another rwd (per-user OPRF keys)', () => {
    expect(toHex(clientRwd('carol', 'same'))).not.toBe(toHex(clientRwd('dave', 'same')))
  })
})

import sodium from 'sodium-native'
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_ARGON, KEY_SCHEDULE_CURRENT, TEST_ARGON, blake2b256, computeVerifier, deriveLoginKeysV1, deriveLoginKeysV2,
  deriveRwd, deriveUserOprfKey, generateSigningKeyPair, oprf, openSecret, sealSecret, toHex
} from '@arus/crypto'
import { rejectionCode } from './helpers.js'

// The whole login key schedule, fixed inputs → fixed keys (docs/architecture.md "Login", "Key
// schedule vectors"). These values are the on-disk format of every user record: a change to
// any label, to the order or to the Argon2id call fails here before it locks a user out.
const SEED = new Uint8Array(32).map((_, i) => i)
const USERNAME = 'alice'
const PASSWORD = new TextEncoder().encode('correct horse battery staple')
const SALT = new Uint8Array(16).map((_, i) => 0xa0 + i)

const VECTORS = {
  sk: '50b0c8289c9633bdec97a52f5a01a544dc44f249c4e9caeafc01f8f1d0b11b05',
  output: 'c3e8d6813805f038466e8671c777804cd319cabe115532f8c00035932fff7c71daba0b314ab7c1d16e7dc3a9bd22380550303ef16a8a41d2b2376e2ba34fe527',
  v1: {
    wrapKey: '556fe6fe6f459aceeedc9a2a9d12a91065f4228ffb2d9b27a41c33e344de720f',
    authPub: 'f0a915f131bbe9cff70cd9fd92175a0171bef3df606d509e24c1211fa9d568e6',
    verifierAtTestCost: 'be74d6fdb2240a4d322b55c5da2a261d2c370063cda3dbfee0cfa22b0ca20a3d'
  },
  v2AtTestCost: {
    wrapKey: '20ea7fe9eebeb59b5c9544abc807dd0adf00f99343292d9bff1241dde110b0c4',
    authPub: '5c689ff1174ff6f39cd58ee0c4a474b4639e7bd1d0470e2cff8bcceede51071e',
    verifier: '3beafcc1f6edf659a7ac367d4f8c80c154e74a4380ddbdd4634e111e2819146d'
  },
  v2AtDefaultCost: {
    wrapKey: '2a18abc35f303884d08e29543eebb57c484c549079cb91e2090bc4d3185fc31a',
    authPub: '94f16e66acc68dd8f65e16de0368b3e7020bf2c859c19fdcff20f32ca611f566',
    verifier: '1cf2f4cf6ce09a52c7bd8e9dcc82c03ef2fb4e6d64fc00e3438a3497bce12cd0'
  }
}

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s)

/** Version 2 written out from the documented steps with libsodium directly (no project helper). */
function independentV2 (output: Uint8Array, salt: Uint8Array, cost: { opslimit: number; memlimit: number }) {
  const rwd2 = blake2b256(utf8('arus/v2/rwd'), output)
  const stretched = new Uint8Array(32)
  sodium.crypto_pwhash(stretched, rwd2, salt, cost.opslimit, cost.memlimit, sodium.crypto_pwhash_ALG_ARGON2ID13)
  const label = utf8('arus/v2/prk')
  const prkInput = new Uint8Array(label.length + 32)
  prkInput.set(label)
  prkInput.set(stretched, label.length)
  const prk = blake2b256(prkInput, rwd2)
  return {
    stretched,
    wrapKey: toHex(blake2b256(utf8('arus/v2/wrap-key'), prk)),
    authPub: toHex(generateSigningKeyPair(blake2b256(utf8('arus/v2/auth-seed'), prk)).publicKey),
    verifier: toHex(blake2b256(utf8('arus/v2/verifier'), prk))
  }
}

describe('login key schedule vectors', () => {
  const sk = deriveUserOprfKey(SEED, USERNAME)
  const output = oprf.evaluate(sk, PASSWORD)

  it('the OPRF part: per-user key and output (RFC 9497 evaluation under the derived key)', () => {
    expect(toHex(sk)).toBe(VECTORS.sk)
    expect(toHex(output)).toBe(VECTORS.output)
    // The blind protocol reaches the same output as the key holder's evaluation.
    const { blind, blindedElement } = oprf.blind(PASSWORD)
    expect(toHex(oprf.finalize(PASSWORD, blind, oprf.blindEvaluate(sk, blindedElement)))).toBe(VECTORS.output)
  })

  it('version 1 (legacy, read-only): keys straight from the output', async () => {
    const keys = deriveLoginKeysV1(output)
    expect(toHex(keys.wrapKey)).toBe(VECTORS.v1.wrapKey)
    expect(toHex(keys.auth.publicKey)).toBe(VECTORS.v1.authPub)
    expect(toHex(await computeVerifier(deriveRwd(output), SALT, TEST_ARGON))).toBe(VECTORS.v1.verifierAtTestCost)
  })

  it('version 2 at the test cost and at the default cost (64 MiB, 3 passes)', async () => {
    expect(KEY_SCHEDULE_CURRENT).toBe(2)
    for (const [cost, want] of [[TEST_ARGON, VECTORS.v2AtTestCost], [DEFAULT_ARGON, VECTORS.v2AtDefaultCost]] as const) {
      const keys = await deriveLoginKeysV2(output, SALT, cost)
      expect({ wrapKey: toHex(keys.wrapKey), authPub: toHex(keys.auth.publicKey), verifier: toHex(keys.verifier) }).toEqual(want)
      const again = independentV2(output, SALT, cost)
      expect({ wrapKey: again.wrapKey, authPub: again.authPub, verifier: again.verifier }).toEqual(want)
      // The record never carries the stretched value: the verifier is a hash of what it keys.
      expect(want.verifier).not.toBe(toHex(again.stretched))
    }
  })

  it('version 2 differs from version 1 everywhere, even where v1 stored Argon2id of the same salt', async () => {
    const v1 = deriveLoginKeysV1(output)
    const v2 = await deriveLoginKeysV2(output, SALT, TEST_ARGON)
    const v1Verifier = toHex(await computeVerifier(deriveRwd(output), SALT, TEST_ARGON))
    const v2Hex = [toHex(v2.wrapKey), toHex(v2.auth.publicKey), toHex(v2.verifier), toHex(independentV2(output, SALT, TEST_ARGON).stretched)]
    for (const h of [toHex(v1.wrapKey), toHex(v1.auth.publicKey), v1Verifier]) expect(v2Hex).not.toContain(h)
  })

  it('every input counts: output, salt and cost each change the keys; a v1 seal does not open under v2', async () => {
    const base = toHex((await deriveLoginKeysV2(output, SALT, TEST_ARGON)).auth.publicKey)
    const otherOutput = oprf.evaluate(sk, utf8('correct horse battery stapler'))
    const otherSalt = SALT.map((b, i) => i === 0 ? b ^ 1 : b)
    expect(toHex((await deriveLoginKeysV2(otherOutput, SALT, TEST_ARGON)).auth.publicKey)).not.toBe(base)
    expect(toHex((await deriveLoginKeysV2(output, otherSalt, TEST_ARGON)).auth.publicKey)).not.toBe(base)
    expect(toHex((await deriveLoginKeysV2(output, SALT, { ...TEST_ARGON, opslimit: 2 })).auth.publicKey)).not.toBe(base)
    const sealed = sealSecret(deriveLoginKeysV1(output).wrapKey, new Uint8Array(32).fill(7))
    const v2Wrap = (await deriveLoginKeysV2(output, SALT, TEST_ARGON)).wrapKey
    expect(() => openSecret(v2Wrap, sealed)).toThrow()
    expect(toHex(openSecret(deriveLoginKeysV1(output).wrapKey, sealed))).toBe('07'.repeat(32))
  })

  it('refuses bad inputs with stable codes', async () => {
    expect(await rejectionCode(deriveLoginKeysV2(new Uint8Array(63), SALT, TEST_ARGON))).toBe('CRYPTO_BAD_LENGTH')
    expect(await rejectionCode(deriveLoginKeysV2(output, new Uint8Array(15), TEST_ARGON))).toBe('CRYPTO_BAD_LENGTH')
    expect(await rejectionCode(deriveLoginKeysV2(output, SALT, { opslimit: 0, memlimit: 8192 }))).toBe('CRYPTO_BAD_ARGON_COST')
  })
})

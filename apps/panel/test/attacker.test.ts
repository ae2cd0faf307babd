import { readFile } from 'node:fs/promises'
import { ristretto255, ristretto255_hasher } from '@noble/curves/ed25519.js'
import { sha512 } from '@noble/hashes/sha2.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type UserRecord } from '@arus/catalog'
import {
  computeVerifier, DEFAULT_ARGON, deriveLoginKeysV1, deriveLoginKeysV2, deriveRwd, deriveUserOprfKey, deriveWrapKey, fromHex, openSecret, oprf,
  randomBytes, toHex
} from '@arus/crypto'
import { cleanupAll, createTestnet, panelV1Fixture, type Testnet } from '@arus/testkit'
import { cliJson, linkToPanel, panelEnv, spawnPanel } from './helpers.js'

// Issue 40, the attacker's side: someone who stole the panel's data directory (the OPRF seed in
// private/identity.json) and holds a replica of the public catalog (every user record) tests
// password guesses offline. The test builds the fastest check it can from the project's own
// code and dependencies (the RFC 9497 evaluation with noble's variable-time multiplication,
// which the panel never uses) and times it:
//   - a schedule-1 account (the committed fixture, keys straight from the OPRF output): one
//     OPRF evaluation and a hash per guess, a fraction of a millisecond;
//   - a schedule-2 account at the default cost (64 MiB, 3 passes): every guess pays one Argon2id.
// docs/architecture.md "Login" states the threat; docs/benchmarks.md "Login key schedule 2" the numbers.

const Point = ristretto255.Point
const enc = new TextEncoder()
const DST = new Uint8Array([...enc.encode('HashToGroup-OPRFV1-'), 0x00, ...enc.encode('-ristretto255-SHA512')])
const u16 = (n: number) => Uint8Array.of(n >> 8, n & 0xff)

/** RFC 9497 Evaluate by the key holder, variable-time (an attacker has no timing to hide). */
const FINALIZE = enc.encode('Finalize')
function fastEvaluate (k: bigint, input: Uint8Array): Uint8Array {
  const element = ristretto255_hasher.hashToCurve(input, { DST }) as InstanceType<typeof Point>
  const unblinded = element.multiplyUnsafe(k).toBytes()
  const msg = new Uint8Array(2 + input.length + 2 + unblinded.length + FINALIZE.length)
  msg.set(u16(input.length), 0)
  msg.set(input, 2)
  msg.set(u16(unblinded.length), 2 + input.length)
  msg.set(unblinded, 4 + input.length)
  msg.set(FINALIZE, 4 + input.length + unblinded.length)
  return sha512(msg)
}

/** Does `key` open `sealed`? (The seal is authenticated: only the right key opens it.) */
function opens (key: Uint8Array, sealed: string): boolean {
  try { openSecret(key, sealed); return true } catch { return false }
}

/** One bare Argon2id at `cost` (the project's verifier function: Argon2id of 32 bytes), in ms. */
async function argon2idForTest (cost: { opslimit: number; memlimit: number }): Promise<number> {
  const t0 = performance.now()
  await computeVerifier(randomBytes(32), randomBytes(16), cost)
  return performance.now() - t0
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

let testnet: Testnet
let fixture: ReturnType<typeof panelV1Fixture>
let seed: Uint8Array
let alice: UserRecord
let carol: UserRecord
const CAROL_PASSWORD = 'carol-' + toHex(randomBytes(4))

beforeAll(async () => {
  testnet = await createTestnet()
  fixture = panelV1Fixture()
  // carol is created by today's panel at the default cost, as an operator's panel would.
  await cliJson(panelEnv(fixture.dataDir, { ARGON2_MEM_KIB: String(DEFAULT_ARGON.memlimit / 1024), ARGON2_OPS: String(DEFAULT_ARGON.opslimit) }), ['create-user', 'carol'], `${CAROL_PASSWORD}\n`)
  await spawnPanel(undefined, panelEnv(fixture.dataDir, { BOOTSTRAP: testnet.bootstrapString }))
  // The stolen data: the seed from the data directory, the records from a replica of the catalog.
  seed = fromHex((JSON.parse(await readFile(`${fixture.dataDir}/private/identity.json`, 'utf8')) as { oprfSeed: string }).oprfSeed, 32)
  const link = await linkToPanel({ onTestFinished: () => {} }, testnet, fixture.panelKey)
  await link.reader.update({ wait: true })
  alice = (await link.reader.getUser('alice'))!
  carol = (await link.reader.getUser('carol'))!
}, 90_000)

afterAll(async () => { await cleanupAll() }, 30_000)

describe('an offline guesser with the panel seed and the catalog', () => {
  it('the fast evaluation is the real one (so the checks below are the real check)', () => {
    const sk = deriveUserOprfKey(seed, 'alice')
    const input = enc.encode(fixture.users.alice.password)
    expect(toHex(fastEvaluate(Point.Fn.fromBytes(sk), input))).toBe(toHex(oprf.evaluate(sk, input)))
  })

  it('schedule 1: a guess costs one OPRF evaluation and a hash — far below one Argon2id', async () => {
    expect(alice.keyVersion).toBeUndefined()
    const k = Point.Fn.fromBytes(deriveUserOprfKey(seed, 'alice'))
    // The cheapest test of a guess: the schedule-1 wrap key straight from the output, tried on encPriv.
    const check = (guess: string) => opens(deriveWrapKey(deriveRwd(fastEvaluate(k, enc.encode(guess)))), alice.encPriv)
    const guesses = Array.from({ length: 200 }, (_, i) => `guess-${i}`)
    guesses.splice(137, 0, fixture.users.alice.password)
    const times: number[] = []
    const found: string[] = []
    for (const g of guesses) {
      const t0 = performance.now()
      if (check(g)) found.push(g)
      times.push(performance.now() - t0)
    }
    expect(found).toEqual([fixture.users.alice.password])
    const argonMs = await argon2idForTest(DEFAULT_ARGON)
    const perGuess = median(times)
    console.log(`schedule 1: ${perGuess.toFixed(3)} ms per guess (median of ${times.length}); one Argon2id at the default cost: ${argonMs.toFixed(1)} ms`)
    expect(perGuess).toBeLessThan(argonMs / 20)
  }, 60_000)

  it('schedule 2 at the default cost: every guess pays one Argon2id, and nothing in the record is cheaper to test', async () => {
    expect(carol.keyVersion).toBe(2)
    expect(carol.argon).toEqual(DEFAULT_ARGON)
    const k = Point.Fn.fromBytes(deriveUserOprfKey(seed, 'carol'))
    const salt = fromHex(carol.salt, 16)
    const check = async (guess: string) => opens((await deriveLoginKeysV2(fastEvaluate(k, enc.encode(guess)), salt, carol.argon)).wrapKey, carol.encPriv)
    // Interleaved with bare Argon2id runs at the same cost, so both see the same machine load.
    const checks: number[] = []
    const argons: number[] = []
    const found: string[] = []
    for (const g of ['guess-a', 'guess-b', CAROL_PASSWORD, 'guess-c', 'guess-d']) {
      argons.push(await argon2idForTest(carol.argon))
      const t0 = performance.now()
      if (await check(g)) found.push(g)
      checks.push(performance.now() - t0)
    }
    expect(found).toEqual([CAROL_PASSWORD])
    console.log(`schedule 2: ${checks.map((t) => t.toFixed(1)).join(', ')} ms per guess; bare Argon2id: ${argons.map((t) => t.toFixed(1)).join(', ')} ms`)
    // At least the Argon2id (a check that skipped it would take ~1 ms): 0.75 leaves room for load changing between runs.
    expect(Math.min(...checks)).toBeGreaterThanOrEqual(0.75 * Math.min(...argons))
    // The shortcuts schedule 1 had do not test a schedule-2 guess: the schedule-1 keys of the
    // right password match nothing in the record.
    const v1 = deriveLoginKeysV1(fastEvaluate(k, enc.encode(CAROL_PASSWORD)))
    expect(toHex(v1.auth.publicKey)).not.toBe(carol.authPub)
    expect([carol.verifier, carol.authPub]).not.toContain(toHex(v1.wrapKey))
    expect(opens(v1.wrapKey, carol.encPriv)).toBe(false)
  }, 60_000)
})

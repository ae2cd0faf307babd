import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { fromHex, generateSigningKeyPair, oprf, solvePow, toHex } from '@arus/crypto'
import { checkSession, sessionLive } from '@arus/sdk'
import { RpcError } from '@arus/rpc'
import { cleanupAll, createTestnet, tmpDir, type Testnet, viewerLogin, WrongPasswordError } from '@arus/testkit'
import { cliJson, initPanel, linkToPanel, panelEnv, spawnPanel, type PanelLink } from './helpers.js'

// One panel process (separate from the test process) on a local testnet; accounts are
// prepared through the CLI before it starts, because the CLI and a running panel cannot
// share the store.
let testnet: Testnet
let env: Record<string, string>
let panelKey: string
let streamKey: string
let link: PanelLink

// The throttle also keys on the peer, so each scenario speaks from its own peer.
beforeEach(async () => { link = await linkToPanel({ onTestFinished: () => {} }, testnet, panelKey) })

async function expectReason (p: Promise<unknown>, reason: string): Promise<RpcError> {
  const err = await p.then(() => null, (e: unknown) => e)
  expect(err).toBeInstanceOf(RpcError)
  expect((err as RpcError).reason).toBe(reason)
  return err as RpcError
}

beforeAll(async () => {
  testnet = await createTestnet()
  env = panelEnv(tmpDir(undefined, 'panel-login-'), { BOOTSTRAP: testnet.bootstrapString, LOCKOUT_THRESHOLD: '3' })
  panelKey = (await initPanel(env)).panelKey
  streamKey = (await cliJson(env, ['add-stream', 'news', '--title', 'News'])).key
  await cliJson(env, ['create-user', 'alice'], 'alice-pw\n')
  await cliJson(env, ['grant', 'alice', 'news'])
  await cliJson(env, ['create-user', 'bob'], 'bob-pw\n')
  await cliJson(env, ['set-status', 'bob', 'disabled'])
  await cliJson(env, ['create-user', 'carol'], 'carol-pw\n')
  await cliJson(env, ['create-user', 'dave'], 'dave-pw\n')
  await cliJson(env, ['set-max-devices', 'dave', '2'])
  await cliJson(env, ['create-user', 'erin'], 'erin-pw\n')
  await spawnPanel(undefined, env)
}, 60_000)

afterAll(async () => { await cleanupAll() }, 30_000)

describe('viewer login over the DHT', () => {
  it('completes hello → PoW → login → session and unseals the granted stream key', async () => {
    const result = await viewerLogin(link.rpc, link.reader, { username: 'alice', password: 'alice-pw', label: 'test tv' })
    // The SDK's offline check accepts the token; a token signed by anyone else is refused.
    const payload = checkSession(panelKey, result.token)
    expect(payload).toMatchObject({ typ: 'session', sub: 'alice', tv: 0 })
    expect(payload!.exp).toBe(result.expiresAt)
    expect(checkSession('ab'.repeat(32), result.token)).toBeNull()
    expect(Buffer.from(result.keys.get('news')!).toString('hex')).toBe(streamKey)
    await link.reader.update({ wait: true })
    const user = await link.reader.getUser('alice')
    expect(user?.devices.map((d) => d.label)).toEqual(['test tv'])
    // And the online check finds the device enrolled with a matching tokenVersion.
    expect(await sessionLive(link.reader, payload!)).toBe(true)
  })

  it("the OPRF reply comes with the blocks of the user's record offered to the viewer's replica", async () => {
    await link.reader.update({ wait: true })
    // Local reads only: true once every block of the lookup is in the replica.
    const local = (name: string) => link.reader.bee.get(`user/${name}`, { wait: false }).then((e) => e !== null, () => false)
    expect(await local('dave')).toBe(false)
    const hello = await link.rpc.hello()
    const { blindedElement } = oprf.blind(new TextEncoder().encode('any password'))
    await link.rpc.login({ username: 'dave', blinded: toHex(blindedElement), powNonce: toHex(solvePow(fromHex(hello.challenge, 32), hello.difficulty)) })
    // This peer never asked for user/dave: the blocks come only because the panel offered them.
    let found = false
    for (let i = 0; i < 250 && !found; i++) {
      found = await local('dave')
      if (!found) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(found).toBe(true)
  })

  it('serves no kdf method (issue 40): no name, known or not, learns a salt or a cost from the panel', async () => {
    for (const username of ['alice', 'nobody']) {
      const err = await link.rpc.request('kdf' as never, { v: 1, username } as never).then(() => null, (e: unknown) => e)
      expect(err).toBeInstanceOf(RpcError)
      expect((err as RpcError).code).toBe('RPC_UNKNOWN_METHOD')
    }
    // A login still works after (nothing was throttled).
    await expect(viewerLogin(link.rpc, link.reader, { username: 'erin', password: 'erin-pw' })).resolves.toMatchObject({ token: expect.any(String) })
  })

  it('writes key schedule 2 for every account it creates (Argon2id before any key)', async () => {
    await link.reader.update({ wait: true })
    for (const name of ['alice', 'bob', 'carol', 'dave', 'erin']) expect((await link.reader.getUser(name))?.keyVersion).toBe(2)
  })

  it('fails a wrong password on the client, before any session', async () => {
    await expect(viewerLogin(link.rpc, link.reader, { username: 'alice', password: 'nope' })).rejects.toBeInstanceOf(WrongPasswordError)
    await link.reader.update({ wait: true })
    expect((await link.reader.getUser('alice'))!.devices).toHaveLength(1)
  })

  it('answers an unknown username with an evaluation (indistinguishable), then refuses its session', async () => {
    await expect(viewerLogin(link.rpc, link.reader, { username: 'nobody', password: 'x' })).rejects.toBeInstanceOf(WrongPasswordError)
  })

  it('refuses a disabled user', async () => {
    await expectReason(viewerLogin(link.rpc, link.reader, { username: 'bob', password: 'bob-pw' }), 'disabled')
  })

  it('locks a user out after LOCKOUT_THRESHOLD attempts without a session', async () => {
    for (let i = 0; i < 3; i++) {
      await expect(viewerLogin(link.rpc, link.reader, { username: 'carol', password: `wrong-${i}` })).rejects.toBeInstanceOf(WrongPasswordError)
    }
    const err = await expectReason(viewerLogin(link.rpc, link.reader, { username: 'carol', password: 'carol-pw' }), 'locked')
    expect(err.retryAfter).toBeGreaterThan(0)
    expect(err.retryAfter).toBeLessThanOrEqual(900)
    // The lock is per user too: the right password from a fresh peer is still refused.
    const other = await linkToPanel({ onTestFinished: () => {} }, testnet, panelKey)
    await expectReason(viewerLogin(other.rpc, other.reader, { username: 'carol', password: 'carol-pw' }), 'locked')
  })

  it('evicts the oldest device past maxDevices', async () => {
    const devices = [generateSigningKeyPair(), generateSigningKeyPair(), generateSigningKeyPair()]
    for (const device of devices) await viewerLogin(link.rpc, link.reader, { username: 'dave', password: 'dave-pw', device })
    await link.reader.update({ wait: true })
    const ids = (await link.reader.getUser('dave'))!.devices.map((d) => d.deviceId)
    const hex = devices.map((d) => Buffer.from(d.publicKey).toString('hex'))
    expect(ids).toHaveLength(2)
    expect(ids).not.toContain(hex[0])
    expect(ids).toEqual(expect.arrayContaining([hex[1], hex[2]]))
  })

  it('appends nothing for 100 repeated logins of an enrolled device', async () => {
    const device = generateSigningKeyPair()
    const core = link.reader.bee.core
    await link.reader.update({ wait: true })
    const before = { length: core.length, byteLength: core.byteLength }
    await viewerLogin(link.rpc, link.reader, { username: 'alice', password: 'alice-pw', device })
    await link.reader.update({ wait: true })
    // The first login of a new device enrolls it: one write, which proves the measure can see writes.
    expect(core.length).toBeGreaterThan(before.length)
    const enrolled = { length: core.length, byteLength: core.byteLength }
    for (let i = 0; i < 100; i++) await viewerLogin(link.rpc, link.reader, { username: 'alice', password: 'alice-pw', device })
    await link.reader.update({ wait: true })
    expect({ length: core.length, byteLength: core.byteLength }).toEqual(enrolled)
  }, 120_000)
})

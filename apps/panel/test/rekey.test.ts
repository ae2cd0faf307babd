import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { generateSigningKeyPair, toHex } from '@arus/crypto'
import { RpcError } from '@arus/rpc'
import { cleanupAll, createTestnet, panelV1Fixture, type Testnet, viewerLogin, WrongPasswordError } from '@arus/testkit'
import { cli, cliJson, linkToPanel, panelEnv, spawnPanel, type PanelLink } from './helpers.js'
import { adminApi } from './http-helpers.js'

// Login key schedule 2 on a panel whose users were made before it (the committed fixture of
// schedule-1 records, packages/testkit/fixtures/README.md): the re-key rides in the session call
// as one write, a hostile or stale re-key lands nothing, and the admin sees and resets what is left.
let testnet: Testnet
let env: Record<string, string>
let fixture: ReturnType<typeof panelV1Fixture>
let link: PanelLink

beforeEach(async () => { link = await linkToPanel({ onTestFinished: () => {} }, testnet, fixture.panelKey) })

async function reason (p: Promise<unknown>): Promise<string | undefined> {
  const err = await p.then(() => null, (e: unknown) => e)
  expect(err).toBeInstanceOf(RpcError)
  return (err as RpcError).reason
}

const measure = async (l: PanelLink) => { await l.reader.update({ wait: true }); return { length: l.reader.bee.core.length, byteLength: l.reader.bee.core.byteLength } }

beforeAll(async () => {
  testnet = await createTestnet()
  fixture = panelV1Fixture()
  env = panelEnv(fixture.dataDir, { BOOTSTRAP: testnet.bootstrapString, LOCKOUT_THRESHOLD: '50' })
  const status = await cliJson(env, ['key-schedule'])
  expect(status).toEqual({ current: 2, users: 2, v1: 2, v2: 0, v1Users: ['alice', 'bob'], v1UsersTruncated: false })
  await spawnPanel(undefined, env)
}, 60_000)

afterAll(async () => { await cleanupAll() }, 30_000)

describe('re-key to schedule 2 at login', () => {
  it('the panel says it takes re-keys; a schedule-1 user logs in without one and nothing but the enrollment is written', async () => {
    await link.reader.update({ wait: true })
    expect((await link.reader.getMeta('panel'))?.keySchedule).toBe(2)
    const before = await link.reader.getUser('bob')
    expect(before?.keyVersion).toBeUndefined()
    const device = generateSigningKeyPair()
    const r = await viewerLogin(link.rpc, link.reader, { username: 'bob', password: fixture.users.bob.password, device })
    expect(r.keyVersion).toBeUndefined() // no re-key asked, none answered
    expect(toHex(r.keys.get('news')!)).toBe(fixture.streamKeys.news)
    const after = (await link.reader.getUser('bob'))!
    expect(after.keyVersion).toBeUndefined()
    expect({ salt: after.salt, authPub: after.authPub, encPriv: after.encPriv }).toEqual({ salt: before!.salt, authPub: before!.authPub, encPriv: before!.encPriv })
  })

  it('refuses a hostile re-key and writes nothing: a swapped key, a field changed after signing, a signature by the wrong key', async () => {
    const device = generateSigningKeyPair()
    await viewerLogin(link.rpc, link.reader, { username: 'bob', password: fixture.users.bob.password, device }) // enrolled: later logins write nothing
    const base = await measure(link)
    const other = generateSigningKeyPair()
    const tampers = [
      (r: any) => ({ ...r, authPub: toHex(other.publicKey) }), // the new key is not the one that signed
      (r: any) => ({ ...r, verifier: 'ab'.repeat(32) }), // a field changed after signing
      (r: any) => ({ ...r, oldSig: r.newSig }) // not signed by the current auth key
    ]
    for (const tamperRekey of tampers) {
      expect(await reason(viewerLogin(link.rpc, link.reader, { username: 'bob', password: fixture.users.bob.password, device, rekey: true, tamperRekey }))).toBe('unauthorized')
    }
    expect(await measure(link)).toEqual(base)
    expect((await link.reader.getUser('bob'))?.keyVersion).toBeUndefined()
  })

  it('a re-key lands in the enrollment write (one append), keeps pub and every grant, and the next login writes nothing', async () => {
    const before = await measure(link)
    const old = (await link.reader.getUser('alice'))!
    const device = generateSigningKeyPair()
    const first = await viewerLogin(link.rpc, link.reader, { username: 'alice', password: fixture.users.alice.password, device, rekey: true })
    expect(first.keyVersion).toBe(2)
    const after = await measure(link)
    expect(after.length).toBe(before.length + 1)
    const now = (await link.reader.getUser('alice'))!
    expect(now.keyVersion).toBe(2)
    expect(now.pub).toBe(old.pub)
    expect(now.wrapped).toEqual(old.wrapped)
    expect(now.tokenVersion).toBe(old.tokenVersion)
    expect(now.salt).not.toBe(old.salt)
    expect(now.authPub).not.toBe(old.authPub)
    expect(now.argon).toEqual(old.argon) // the recorded cost stays the user's
    expect(now.devices.map((d) => d.deviceId)).toContain(toHex(device.publicKey))
    // The next login (schedule 2 now: Argon2id first) opens every grant and appends nothing.
    const second = await viewerLogin(link.rpc, link.reader, { username: 'alice', password: fixture.users.alice.password, device, rekey: true })
    expect(second.keyVersion).toBeUndefined() // a schedule-2 record: no re-key offered, none answered
    expect(second.user.keyVersion).toBe(2)
    expect(Object.fromEntries([...second.keys].map(([id, k]) => [id, toHex(k)]))).toEqual(fixture.streamKeys)
    expect(await measure(link)).toEqual(after)
    await expect(viewerLogin(link.rpc, link.reader, { username: 'alice', password: 'alice-v1-passwordX', device })).rejects.toBeInstanceOf(WrongPasswordError)
    // A re-key of a record already on schedule 2 is refused and writes nothing.
    expect(await reason(viewerLogin(link.rpc, link.reader, { username: 'alice', password: fixture.users.alice.password, device, rekey: 'always' }))).toBe('invalid-request')
    expect(await measure(link)).toEqual(after)
  })

})

describe('schedule-1 accounts, from the admin side', () => {
  it('GET /api/key-schedule counts and names them; a password set or a new user is schedule 2; a forced reset takes the rest', async (t) => {
    const fx = panelV1Fixture()
    const a = await adminApi(t, { dataDir: fx.dataDir, panelKey: fx.panelKey })
    expect((await a.call('GET', '/api/key-schedule')).body).toEqual({ current: 2, users: 2, v1: 2, v2: 0, v1Users: ['alice', 'bob'], v1UsersTruncated: false })
    expect((await a.call('GET', '/api/users/alice')).body.keyVersion).toBe(1)
    const carol = await a.call('POST', '/api/users', { username: 'carol', password: 'carol-pw' })
    expect(carol.body.keyVersion).toBe(2)
    expect((await a.opened.ctx.catalog.getUser('carol'))?.keyVersion).toBe(2)
    expect((await a.call('POST', '/api/users/bob/password', { password: 'bob-new-pw' })).body.keyVersion).toBe(2)
    expect((await a.call('GET', '/api/key-schedule')).body).toMatchObject({ users: 3, v1: 1, v2: 2, v1Users: ['alice'] })

    // The reset asks for confirmation, then gives alice a password nobody knows and ends her sessions.
    expect((await a.call('POST', '/api/key-schedule/reset', {})).status).toBe(400)
    const old = (await a.opened.ctx.catalog.getUser('alice'))!
    const reset = await a.call('POST', '/api/key-schedule/reset', { confirm: true })
    expect(reset.body).toEqual({ reset: ['alice'] })
    const now = (await a.opened.ctx.catalog.getUser('alice'))!
    expect(now.keyVersion).toBe(2)
    expect(now.tokenVersion).toBe(old.tokenVersion + 1)
    expect(now.authPub).not.toBe(old.authPub)
    expect(Object.keys(now.wrapped).sort()).toEqual(fx.users.alice.grants) // re-sealed to the new key pair
    expect((await a.call('GET', '/api/key-schedule')).body).toMatchObject({ v1: 0, v2: 3, v1Users: [] })
    // Nothing left: a second reset writes nothing.
    const core = a.opened.ctx.catalog.bee.core
    const before = { length: core.length, byteLength: core.byteLength }
    expect((await a.call('POST', '/api/key-schedule/reset', { confirm: true })).body).toEqual({ reset: [] })
    expect({ length: core.length, byteLength: core.byteLength }).toEqual(before)
    // The reset's random password is in no answer and no activity entry.
    expect(JSON.stringify(reset.body)).not.toMatch(/[0-9a-f]{64}/)
  })

  it('the CLI: key-schedule reports, reset-legacy-users needs --yes', async () => {
    const fx = panelV1Fixture()
    const e = panelEnv(fx.dataDir)
    const r = await cli(e, ['reset-legacy-users'])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/--yes/)
    expect((await cli(e, ['key-schedule'])).stdout).toMatch(/2 users: 0 on schedule 2, 2 on schedule 1\nschedule 1: alice, bob/)
    expect(await cliJson(e, ['reset-legacy-users', '--yes'])).toEqual({ reset: ['alice', 'bob'] })
    expect(await cliJson(e, ['key-schedule'])).toMatchObject({ v1: 0, v2: 2 })
  })
})

describe('the cost every viewer device pays', () => {
  it('the panel refuses an Argon2id memory cost above 256 MiB at boot, naming the variable', async () => {
    const { loadPanelConfig } = await import('../src/config.js')
    expect(() => loadPanelConfig({ ARGON2_MEM_KIB: '524288' })).toThrow(/ARGON2_MEM_KIB/)
    expect(loadPanelConfig({ ARGON2_MEM_KIB: '262144' }).ARGON2_MEM_KIB).toBe(262144)
    expect(loadPanelConfig({}).ARGON2_MEM_KIB).toBe(65536)
  })
})

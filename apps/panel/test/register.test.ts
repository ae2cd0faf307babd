import Hyperdrive from 'hyperdrive'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateSigningKeyPair, randomBytes, sign, toHex } from '@arus/crypto'
import { encodeRegisterPayload, RpcError, type RegisterPayloadInput } from '@arus/rpc'
import { cleanupAll, createTestnet, tmpDir, tmpStore, waitFor, type SpawnedProcess, type Testnet } from '@arus/testkit'
import { cliJson, initPanel, legacyPublisherKey, linkToPanel, panelEnv, spawnPanel, type PanelLink } from './helpers.js'

let testnet: Testnet
let env: Record<string, string>
let panelKey: string
let panel: SpawnedProcess
let link: PanelLink
let site1: { secretKey: Uint8Array }
let site2: { secretKey: Uint8Array }
let legacy: Uint8Array
const noTeardown = { onTestFinished: () => {} }

function signed (payload: Omit<RegisterPayloadInput, 'ts'> & { ts?: number }, secretKey: Uint8Array) {
  const text = encodeRegisterPayload({ ts: Date.now(), ...payload } as RegisterPayloadInput)
  return { payload: text, sig: toHex(sign(new TextEncoder().encode(text), secretKey)) }
}

async function reason (p: Promise<unknown>): Promise<string | undefined> {
  const err = await p.then(() => null, (e: unknown) => e)
  expect(err).toBeInstanceOf(RpcError)
  return (err as RpcError).reason
}

async function coreSize () {
  await link.reader.update({ wait: true })
  const core = link.reader.bee.core
  return { length: core.length, byteLength: core.byteLength }
}

/** An encrypted feed drive served by the test peer, so the panel can read its header. */
async function serveDrive (key: Uint8Array): Promise<{ feedKey: string; blobsKey: string }> {
  const store = await tmpStore(noTeardown)
  const drive = new Hyperdrive(store, null, { encryptionKey: key })
  await drive.ready()
  await drive.put('/index.m3u8', Buffer.from('#EXTM3U\n'))
  const blobs = await drive.getBlobs()
  link.swarm.on('connection', (conn) => store.replicate(conn))
  for (const conn of link.swarm.connections) store.replicate(conn)
  await link.swarm.join(drive.discoveryKey, { server: true, client: false }).flushed()
  return { feedKey: toHex(drive.key), blobsKey: toHex(blobs!.core.key!) }
}

beforeAll(async () => {
  testnet = await createTestnet()
  env = panelEnv(tmpDir(undefined, 'panel-register-'), { BOOTSTRAP: testnet.bootstrapString })
  panelKey = (await initPanel(env)).panelKey
  legacy = await legacyPublisherKey(env.DATA_DIR!)
  site1 = { secretKey: Buffer.from((await cliJson(env, ['add-publisher', 'site1', '--scopes', 'news*,sport-?'])).secretKey, 'hex') }
  site2 = { secretKey: Buffer.from((await cliJson(env, ['add-publisher', 'site2'])).secretKey, 'hex') }
  await cliJson(env, ['set-publisher-status', 'site2', 'revoked'])
  panel = await spawnPanel(undefined, env)
  link = await linkToPanel(noTeardown, testnet, panelKey)
}, 60_000)

afterAll(async () => { await cleanupAll() }, 30_000)

describe('register', () => {
  const key = toHex(randomBytes(32))
  const feedKey = toHex(randomBytes(32))

  it('accepts an enrolled publisher within scope, stamps origin, seeds metadata once and never stores the key', async () => {
    const r = await link.rpc.register(signed({ streamId: 'news1', publisher: 'site1', feedKey, isLive: true, key, title: 'News One', category: ['News'] }, site1.secretKey))
    expect(r).toMatchObject({ ok: true, changed: true })
    await link.reader.update({ wait: true })
    const record = await link.reader.getStream('news1')
    expect(record).toMatchObject({ title: 'News One', category: ['News'], feedKey, isLive: true, status: 'live', origin: 'site1', redirect: false })
    expect(JSON.stringify(record)).not.toContain(key)

    await link.rpc.register(signed({ streamId: 'news1', publisher: 'site1', feedKey, isLive: true, key, title: 'Renamed by site' }, site1.secretKey))
    await link.reader.update({ wait: true })
    expect((await link.reader.getStream('news1'))!.title).toBe('News One')
  })

  it('refuses out of scope, revoked, unknown and badly signed registers, writing nothing', async () => {
    const before = await coreSize()
    expect(await reason(link.rpc.register(signed({ streamId: 'movies1', publisher: 'site1', feedKey, key }, site1.secretKey)))).toBe('out-of-scope')
    expect(await reason(link.rpc.register(signed({ streamId: 'news2', publisher: 'site2', feedKey, key }, site2.secretKey)))).toBe('revoked')
    expect(await reason(link.rpc.register(signed({ streamId: 'news2', publisher: 'ghost', feedKey, key }, site1.secretKey)))).toBe('unknown-publisher')
    expect(await reason(link.rpc.register(signed({ streamId: 'news2', publisher: 'site1', feedKey, key }, generateSigningKeyPair().secretKey)))).toBe('unauthorized')
    expect(await reason(link.rpc.register(signed({ streamId: 'news2', feedKey, key }, generateSigningKeyPair().secretKey)))).toBe('unauthorized')
    expect(await reason(link.rpc.register(signed({ streamId: 'news2', publisher: 'site1', feedKey, key, ts: Date.now() - 3_600_000 }, site1.secretKey)))).toBe('stale')
    expect(await coreSize()).toEqual(before)
    expect(await link.reader.getStream('news2')).toBeNull()
  })

  it('appends zero blocks and zero bytes for an unchanged register', async () => {
    const before = await coreSize()
    for (let i = 0; i < 5; i++) {
      const r = await link.rpc.register(signed({ streamId: 'news1', publisher: 'site1', feedKey, isLive: true, key }, site1.secretKey))
      expect(r.changed).toBe(false)
    }
    expect(await coreSize()).toEqual(before)
  })

  it('flips isLive on stop and back on start', async () => {
    await link.rpc.register(signed({ streamId: 'news1', publisher: 'site1', feedKey, isLive: false, key }, site1.secretKey))
    await link.reader.update({ wait: true })
    expect(await link.reader.getStream('news1')).toMatchObject({ isLive: false, status: 'idle' })
    await link.rpc.register(signed({ streamId: 'news1', publisher: 'site1', feedKey, isLive: true, key }, site1.secretKey))
    await link.reader.update({ wait: true })
    expect(await link.reader.getStream('news1')).toMatchObject({ isLive: true, status: 'live' })
  })

  it('accepts the legacy shared key (origin null) while LEGACY_PUBLISHER=1', async () => {
    const r = await link.rpc.register(signed({ streamId: 'legacy1', feedKey, isLive: true, key }, legacy))
    expect(r.ok).toBe(true)
    await link.reader.update({ wait: true })
    expect(await link.reader.getStream('legacy1')).toMatchObject({ origin: null, title: 'legacy1', isLive: true })
  })

  it('fills blobsKey after a register, and clears and refills it when feedKey rotates', async () => {
    const streamKey = randomBytes(32)
    const first = await serveDrive(streamKey)
    await link.rpc.register(signed({ streamId: 'sport-1', publisher: 'site1', feedKey: first.feedKey, isLive: true, key: toHex(streamKey) }, site1.secretKey))
    await waitFor(async () => {
      await link.reader.update({ wait: true })
      return (await link.reader.getStream('sport-1'))?.blobsKey === first.blobsKey
    }, { timeoutMs: 30_000, message: 'blobsKey of the first feed' })

    const second = await serveDrive(streamKey)
    await link.rpc.register(signed({ streamId: 'sport-1', publisher: 'site1', feedKey: second.feedKey, isLive: true, key: toHex(streamKey) }, site1.secretKey))
    await link.reader.update({ wait: true })
    const rotated = await link.reader.getStream('sport-1')
    expect(rotated!.feedKey).toBe(second.feedKey)
    expect(rotated!.blobsKey === null || rotated!.blobsKey === second.blobsKey).toBe(true)
    await waitFor(async () => {
      await link.reader.update({ wait: true })
      return (await link.reader.getStream('sport-1'))?.blobsKey === second.blobsKey
    }, { timeoutMs: 30_000, message: 'blobsKey of the rotated feed' })
  }, 90_000)

  it('refuses the legacy key once LEGACY_PUBLISHER=0, and keeps serving registers after a restart', async () => {
    expect((await panel.stop()).code).toBe(0) // a clean shutdown on SIGTERM
    panel = await spawnPanel(undefined, { ...env, LEGACY_PUBLISHER: '0' })
    link = await linkToPanel(noTeardown, testnet, panelKey)
    expect(await reason(link.rpc.register(signed({ streamId: 'legacy1', feedKey, isLive: false, key }, legacy)))).toBe('unauthorized')
    const r = await link.rpc.register(signed({ streamId: 'news1', publisher: 'site1', feedKey, isLive: false, key }, site1.secretKey))
    expect(r).toMatchObject({ ok: true, changed: true })
  }, 60_000)
})

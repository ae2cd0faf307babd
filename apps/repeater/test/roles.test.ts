import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Hyperdrive from 'hyperdrive'
import { openCatalogReader } from '@arus/catalog'
import { createStore, topicFor } from '@arus/swarm'
import { cleanupAll, createStack, startBroadcaster, startRepeater, tmpDir, waitFor, type Stack, type Testnet } from '@arus/testkit'

// Issue 42, the optional roles: with PANEL_DATA, ASSETS and ANNOUNCE a repeater holds the
// panel's catalog core whole and its art drive, and announces on the panel's topic; with the
// panel stopped, a cold reader that knows only the panel's public key finds the repeater on
// that topic and completes its pre-login catalog reads and an art read from it. Real panel,
// broadcaster and repeater processes on a local testnet; every wait bounded.
const ctx = { onTestFinished: () => {} }
let stack: Stack
const PNG = Buffer.from('89504e470d0a1a0a' + '00'.repeat(64), 'hex')

beforeAll(async () => {
  stack = await createStack(ctx, {})
}, 60_000)

afterAll(async () => { await cleanupAll() }, 60_000)

describe('repeater roles', () => {
  it('serves the catalog and the art to a cold reader while the panel is down', async (t) => {
    const bc = await startBroadcaster(t, { panel: stack.panel })
    await bc.channel('news', { hlsTime: 2, hlsListSize: 4 })
    const poster = (await stack.panel.call('POST', '/api/streams/news/art/poster', PNG, { contentType: 'image/png' })).body as { path: string }
    expect(poster.path).toMatch(/^assets\//)
    const rep = await startRepeater(t, { panel: stack.panel, env: { PANEL_DATA: '1', ASSETS: '1', ANNOUNCE: '1' } })
    await waitFor(async () => {
      const h = await rep.health() as any
      return h.panelData.length > 0 && h.panelData.held === h.panelData.length && h.assets.bytesHeld >= PNG.byteLength
    }, { timeoutMs: 30_000, intervalMs: 250, message: 'the catalog core and the art held whole' })
    // With no feed selected the role is the same: only the panel's data is what this proves.
    await stack.panel.stop()

    const testnet = stack.testnet as Testnet
    const swarm = testnet.createSwarm()
    const store = createStore(tmpDir(t, 'arus-cold-'))
    t.onTestFinished(async () => { await swarm.destroy(); await store.close() })
    swarm.on('connection', (conn) => store.replicate(conn))
    const panelKey = Buffer.from(stack.panel.panelKey, 'hex')
    const catalog = openCatalogReader({ store, panelPublicKey: panelKey, readTimeoutMs: 20_000 })
    await catalog.ready()
    swarm.join(topicFor(panelKey), { server: false, client: true })
    await waitFor(async () => (await catalog.update({ wait: true, timeoutMs: 2000 })) || catalog.bee.core.length > 0, { timeoutMs: 30_000, intervalMs: 200, message: 'the catalog from the repeater' })
    const remote = [...swarm.connections].map((c) => Buffer.from(c.remotePublicKey).toString('hex'))
    expect(remote).toContain(rep.publicKey)
    expect(remote).not.toContain(stack.panel.panelKey)
    const streams = await catalog.listStreams()
    expect(streams.map((s) => s.id)).toContain('news')
    const meta = await catalog.getMeta('panel')
    expect(meta?.assetsKey).toMatch(/^[0-9a-f]{64}$/)
    const drive = new Hyperdrive(store.session(), Buffer.from(meta!.assetsKey!, 'hex'))
    t.onTestFinished(() => drive.close())
    await waitFor(async () => { await drive.update({ wait: true }); return (await drive.entry(`/${poster.path}`, { timeout: 2000 })) !== null }, { timeoutMs: 20_000, intervalMs: 200, message: 'the art drive from the repeater' })
    const art = await drive.get(`/${poster.path}`, { wait: true, timeout: 20_000 })
    expect(Buffer.compare(art!, PNG)).toBe(0)
    expect(((await rep.health()) as any).assets.bytesOut).toBeGreaterThan(0)
  }, 120_000)
})

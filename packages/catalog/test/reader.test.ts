import b4a from 'b4a'
import Hyperbee from 'hyperbee'
import { afterEach, describe, expect, it } from 'vitest'
import { catalogCoreKey, catalogManifest, createCatalogWriter, encodeRecord, openCatalogReader } from '@arus/catalog'
import type { CatalogReader, CatalogWriter, PanelKeyPair } from '@arus/catalog'
import type Corestore from 'corestore'
import { changeQueue, cleanup, defer, liveRecord, once, panelKeyPair, replicate, tempStore, userRecord, vodRecord } from './helpers.js'

afterEach(cleanup)

async function writerOn (store: Corestore, keyPair: PanelKeyPair): Promise<CatalogWriter> {
  const w = createCatalogWriter({ store, keyPair })
  defer(() => w.close())
  await w.ready()
  return w
}

async function readerOn (store: Corestore, panelPublicKey: Uint8Array, readTimeoutMs?: number): Promise<CatalogReader> {
  const r = openCatalogReader({ store, panelPublicKey, readTimeoutMs })
  defer(() => r.close())
  await r.ready()
  return r
}

describe('reader over replication', () => {
  it('reads what the panel wrote, and its watch fires on an edit without polling', async () => {
    const kp = panelKeyPair()
    const ws = await tempStore()
    const rs = await tempStore()
    const w = await writerOn(ws, kp)
    await w.putStream('ch1', liveRecord())
    await w.putStream('film', vodRecord())
    await w.putUser('ana', userRecord())
    await w.putCatMeta({ v: 1, slug: 'news', hidden: true })
    await w.putVodConfig({ v: 1, enabled: false, apiBase: '', service: '', sources: {}, params: {} })
    await w.putMeta('panel', { v: 1, assetsKey: null, serviceName: 'Arus' })

    const r = await readerOn(rs, kp.publicKey)
    expect(Buffer.from(r.key)).toEqual(Buffer.from(catalogCoreKey(kp.publicKey)))
    replicate(ws, rs)
    expect(await r.update({ wait: true })).toBe(true)
    expect(r.version).toBe(w.stats().version)
    expect(await r.getStream('ch1')).toEqual(liveRecord())
    expect((await r.listStreams()).map((s) => s.id)).toEqual(['ch1', 'film'])
    expect((await r.getUser('ana'))?.maxDevices).toBe(3)
    expect(await r.getCatMeta('news')).toEqual({ v: 1, slug: 'news', hidden: true })
    expect(await r.listCatMeta()).toHaveLength(1)
    expect((await r.getVodConfig())?.enabled).toBe(false)
    expect((await r.getMeta('panel'))?.serviceName).toBe('Arus')
    expect(await r.getStream('missing')).toBeNull()
    expect(await r.getStream('not a valid id')).toBeNull()

    const q = changeQueue()
    const watch = r.watch('catalog/', q.push)
    await watch.ready()
    await w.putUser('ana', userRecord({ tokenVersion: 1 })) // another range: no catalog change
    await w.putStream('ch1', liveRecord({ title: 'Edited', isLive: false, status: 'idle' }))
    expect(await q.next(10_000)).toEqual([{ key: 'catalog/ch1', value: liveRecord({ title: 'Edited', isLive: false, status: 'idle' }) }])
    await w.deleteStream('film')
    expect(await q.next(10_000)).toEqual([{ key: 'catalog/film', value: null }])
  })

  it('an edit reaches a reader together with its newest block (asked for with the upgrade)', async () => {
    const kp = panelKeyPair()
    const ws = await tempStore()
    const rs = await tempStore()
    const w = await writerOn(ws, kp)
    await w.putStream('ch1', liveRecord())
    const r = await readerOn(rs, kp.publicKey)
    replicate(ws, rs)
    expect(await r.update({ wait: true })).toBe(true)
    // At each append event the newest block is already stored: the watch's diff reads it
    // locally instead of asking the panel for it (docs/architecture.md "Edit propagation").
    const core = r.bee.core
    const arrived: boolean[] = []
    const checks: Array<Promise<void>> = []
    const onAppend = (): void => { const last = core.length - 1; checks.push(core.has(last).then((has: boolean) => { arrived.push(has) })) }
    core.on('append', onAppend)
    defer(() => { core.off('append', onAppend) })
    for (let i = 0; i < 5; i++) {
      const seen = once(core, 'append')
      await w.putStream('ch1', liveRecord({ title: `Edit ${i}` }))
      await seen
    }
    await Promise.all(checks)
    expect(arrived).toEqual([true, true, true, true, true])
  })

  it('offerPath makes a replica fetch the blocks of a lookup before it looks', async () => {
    const kp = panelKeyPair()
    const ws = await tempStore()
    const rs = await tempStore()
    const w = await writerOn(ws, kp)
    for (let i = 0; i < 40; i++) await w.putUser(`u${i}`, userRecord())
    await w.putStream('ch1', liveRecord())
    const r = await readerOn(rs, kp.publicKey)
    replicate(ws, rs)
    expect(await r.update({ wait: true })).toBe(true)
    const local = () => r.bee.get('user/u17', { wait: false }).then((e) => e !== null, () => false)
    expect(await local()).toBe(false) // only the newest block came with the upgrade
    expect(w.offerPath('user/u17', b4a.alloc(32, 9))).toBe(false) // not a peer of this catalog
    const peer = w.bee.core.peers[0]!.remotePublicKey as Uint8Array
    expect(w.offerPath('user/u17', peer)).toBe(true)
    // The reader never asked: only the offered list brings the blocks (bounded wait).
    let found = false
    for (let i = 0; i < 100 && !found; i++) {
      found = await local()
      if (!found) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(found).toBe(true)
    expect(await r.getUser('u17')).toEqual(userRecord())
    expect(() => w.offerPath('not a key', peer)).toThrow()
  })

  it('skips and counts values that fail their schema instead of throwing', async () => {
    const kp = panelKeyPair()
    const ws = await tempStore()
    const rs = await tempStore()
    const w = await writerOn(ws, kp)
    await w.putStream('good', liveRecord())
    // Written below the schema layer on purpose, as a buggy or future panel might.
    await w.bee.put('catalog/bad', b4a.from('{"v":1,"title":"no other fields"}'))
    await w.bee.put('catalog/worse', b4a.from('not json'))
    const r = await readerOn(rs, kp.publicKey)
    replicate(ws, rs)
    await r.update({ wait: true })
    expect(await r.getStream('bad')).toBeNull()
    expect((await r.listStreams()).map((s) => s.id)).toEqual(['good'])
    expect(r.stats().invalidRecords).toBe(3)
  })

  it('a read whose blocks no peer delivers fails with CATALOG_READ_TIMEOUT, boundedly', async () => {
    const kp = panelKeyPair()
    const ws = await tempStore()
    const rs = await tempStore()
    const w = await writerOn(ws, kp)
    await w.putStream('ch1', liveRecord())
    const r = await readerOn(rs, kp.publicKey, 300)
    const stop = replicate(ws, rs)
    expect(await r.update({ wait: true })).toBe(true) // length known, blocks not fetched
    stop()
    await expect(r.getStream('ch1')).rejects.toMatchObject({ code: 'CATALOG_READ_TIMEOUT' })
  })
})

describe('reader trust: only the panel key', () => {
  it('refuses a core that claims the panel key but is signed by another key', async () => {
    const panel = panelKeyPair()
    const thief = panelKeyPair()
    const fs = await tempStore()
    // The forger knows the panel public key and signs with its own secret.
    const forged = fs.get({ keyPair: { publicKey: panel.publicKey, secretKey: thief.secretKey }, manifest: catalogManifest(panel.publicKey) })
    const forgedBee = new Hyperbee(forged, { keyEncoding: 'utf-8', valueEncoding: 'binary' })
    defer(() => forgedBee.close())
    await forgedBee.ready()
    expect(Buffer.from(forged.key!)).toEqual(Buffer.from(catalogCoreKey(panel.publicKey)))
    await forgedBee.put('catalog/evil', encodeRecord('catalog/evil', liveRecord({ title: 'forged' })).bytes)
    expect(forged.length).toBe(2)

    const rs = await tempStore()
    const r = await readerOn(rs, panel.publicKey, 500)
    const refused = once(r.bee.core, 'verification-error', 10_000)
    replicate(fs, rs)
    const [err] = await refused // the forged blocks arrived and hypercore refused them
    expect((err as { code?: string }).code).toBe('INVALID_SIGNATURE')
    expect(await r.update({ wait: true, timeoutMs: 300 })).toBe(false)
    expect(r.stats()).toMatchObject({ length: 0 })
    expect(r.stats().verificationErrors).toBeGreaterThan(0)
    expect(await r.getStream('evil')).toBeNull()
    expect(await r.listStreams()).toEqual([])

    // Control: the same reader, meeting the genuine panel, reads the genuine catalog.
    const ws = await tempStore()
    const w = await writerOn(ws, panel)
    await w.putStream('real', liveRecord())
    replicate(ws, rs)
    expect(await r.update({ wait: true })).toBe(true)
    expect((await r.getStream('real'))?.title).toBe('News 24')
    expect(await r.getStream('evil')).toBeNull()
  })

  it('gets nothing from a peer that only has a catalog of another key', async () => {
    const panel = panelKeyPair()
    const os = await tempStore()
    const other = await writerOn(os, panelKeyPair())
    await other.putStream('ch1', liveRecord())
    const rs = await tempStore()
    const r = await readerOn(rs, panel.publicKey, 300)
    replicate(os, rs)
    expect(await r.update({ wait: true, timeoutMs: 1000 })).toBe(false)
    expect(r.stats().length).toBe(0)
    expect(await r.getStream('ch1')).toBeNull()
  })
})

import { createSocket } from 'node:dgram'
import { afterEach, describe, expect, it } from 'vitest'
import { CatalogError, catalogCoreKey, createCatalogWriter } from '@arus/catalog'
import type { CatalogWriter, UserRecord } from '@arus/catalog'
import { HEX32, HEX32B, cleanup, defer, liveRecord, panelKeyPair, tempStore, userRecord, vodRecord } from './helpers.js'

afterEach(cleanup)

async function openWriter (): Promise<CatalogWriter> {
  const store = await tempStore()
  const writer = createCatalogWriter({ store, keyPair: panelKeyPair() })
  defer(() => writer.close())
  await writer.ready()
  return writer
}

describe('writer: the append-only budget', () => {
  it('an unchanged put appends zero blocks and zero bytes; a changed field appends', async () => {
    const w = await openWriter()
    expect(await w.putStream('ch1', liveRecord())).toEqual({ changed: true })
    const before = w.stats()
    expect(before.length).toBeGreaterThan(0)

    // Same record, fields in another order: same canonical bytes, nothing written.
    const reordered = Object.fromEntries(Object.entries(liveRecord()).reverse()) as ReturnType<typeof liveRecord>
    expect(await w.putStream('ch1', reordered)).toEqual({ changed: false })
    expect(await w.updateStream('ch1', (r) => r === null ? null : { ...r })).toMatchObject({ changed: false })
    expect(await w.updateStream('ch1', () => undefined)).toMatchObject({ changed: false })
    expect(await w.deleteStream('absent')).toEqual({ changed: false })
    expect(await w.batch(async (b) => { await b.put('catalog/ch1', liveRecord()) })).toEqual({ changed: 0 })
    const same = w.stats()
    expect(same.length).toBe(before.length)
    expect(same.byteLength).toBe(before.byteLength)

    expect(await w.putStream('ch1', liveRecord({ title: 'News 25' }))).toEqual({ changed: true })
    const after = w.stats()
    expect(after.length).toBe(before.length + 1)
    expect(after.byteLength).toBeGreaterThan(before.byteLength)
    expect((await w.getStream('ch1'))?.title).toBe('News 25')
  })

  it('the core key is derived from the panel public key only', async () => {
    const store = await tempStore()
    const kp = panelKeyPair()
    const w = createCatalogWriter({ store, keyPair: kp })
    defer(() => w.close())
    await w.ready()
    expect(Buffer.from(w.key)).toEqual(Buffer.from(catalogCoreKey(kp.publicKey)))
    expect(Buffer.from(w.bee.core.key!)).toEqual(Buffer.from(w.key))
  })
})

describe('writer: reads on the way of an edit', () => {
  it('the root an edit appended is read back off the edit\'s path: the next lookup reads no block from storage', async () => {
    const w = await openWriter()
    for (let i = 0; i < 40; i++) await w.putStream(`ch${i}`, liveRecord({ title: `Channel ${i}` }))
    for (let i = 0; i < 40; i++) await w.getStream(`ch${i}`) // every node of the tree read once
    const proto = Object.getPrototypeOf(w.bee.core) as { get: (...args: unknown[]) => Promise<unknown> }
    const get = proto.get
    let reads = 0
    proto.get = function (this: unknown, ...args: unknown[]) { reads++; return get.apply(this, args) }
    defer(() => { proto.get = get })
    for (let i = 0; i < 5; i++) {
      await w.updateStream('ch7', (r) => r === null ? null : { ...r, title: `Edit ${i}` })
      await new Promise((resolve) => setTimeout(resolve, 20)) // an admin's next edit comes later
      reads = 0
      expect((await w.getStream('ch21'))?.title).toBe('Channel 21')
      expect(reads).toBe(0)
    }
  })

  it('reads and writes open no snapshot session of the core (the newest version is read in place)', async () => {
    const w = await openWriter()
    await w.putStream('ch1', liveRecord())
    const core = w.bee.core as unknown as { snapshot: (...args: unknown[]) => unknown; session: (...args: unknown[]) => unknown }
    let sessions = 0
    for (const name of ['snapshot', 'session'] as const) {
      const original = core[name]
      core[name] = function (this: unknown, ...args: unknown[]) { sessions++; return original.apply(this, args) }
      defer(() => { core[name] = original })
    }
    expect((await w.getStream('ch1'))?.title).toBe('News 24')
    expect(await w.putStream('ch1', liveRecord())).toEqual({ changed: false })
    expect((await w.updateStream('ch1', (r) => r === null ? null : { ...r, title: 'Edited' })).changed).toBe(true)
    expect(await w.deleteStream('missing')).toEqual({ changed: false })
    expect(await w.deleteStream('ch1')).toEqual({ changed: true })
    expect(await w.getStream('ch1')).toBeNull()
    expect(sessions).toBe(0)
  })

  it('a write that appends resolves only after the event loop has polled its sockets once (its announcements leave before the caller goes on)', async () => {
    // hypercore queues an append's range and sync on UDX, which sends when the loop next polls;
    // a loopback datagram sent at the append stands in for them: it is received at that poll.
    const w = await openWriter()
    await w.putStream('ch1', liveRecord())
    const rx = createSocket('udp4')
    const tx = createSocket('udp4')
    defer(() => new Promise<void>((resolve) => { tx.close(); rx.close(() => resolve()) }))
    await new Promise<void>((resolve) => rx.bind(0, '127.0.0.1', resolve))
    const port = rx.address().port
    let received = 0
    rx.on('message', () => { received++ })
    const onAppend = (): void => { tx.send(Buffer.from('announce'), port, '127.0.0.1') }
    w.bee.core.on('append', onAppend)
    defer(() => { w.bee.core.off('append', onAppend) })
    const writes: Array<[string, () => Promise<unknown>]> = [
      ['put', () => w.putStream('ch1', liveRecord({ title: 'A' }))],
      ['update', () => w.updateStream('ch1', (r) => r === null ? null : { ...r, title: 'B' })],
      ['batch', () => w.batch(async (b) => { await b.put('catalog/ch2', liveRecord()) })],
      ['del', () => w.deleteStream('ch2')]
    ]
    for (const [what, write] of writes) {
      const before = received
      await write()
      expect(`${what}: ${received - before}`).toBe(`${what}: 1`)
    }
    // An unchanged write appends nothing and does not wait.
    await w.putStream('ch1', liveRecord({ title: 'B' }))
  })
})

describe('writer: concurrency', () => {
  it('50 concurrent updateUser increments on one user end at 50', async () => {
    const w = await openWriter()
    await w.putUser('ana', userRecord())
    await Promise.all(Array.from({ length: 50 }, async () => {
      await w.updateUser('ana', async (u) => {
        await new Promise((resolve) => setImmediate(resolve)) // yield mid-update to invite races
        return u === null ? null : { ...u, tokenVersion: u.tokenVersion + 1 }
      })
    }))
    expect((await w.getUser('ana'))?.tokenVersion).toBe(50)
  })

  it('updates of different users and a batch interleave without losing writes', async () => {
    const w = await openWriter()
    const names = ['a', 'b', 'c']
    for (const n of names) await w.putUser(n, userRecord())
    const bump = (u: UserRecord | null): UserRecord | null => (u === null ? null : { ...u, tokenVersion: u.tokenVersion + 1 })
    await Promise.all([
      ...names.flatMap((n) => Array.from({ length: 10 }, () => w.updateUser(n, bump))),
      w.batch(async (b) => { for (const n of names) await b.update(`user/${n}`, bump) })
    ])
    for (const n of names) expect((await w.getUser(n))?.tokenVersion).toBe(11)
  })
})

describe('writer: refusals', () => {
  it.each([
    ['http art', () => liveRecord({ poster: 'http://example.com/p.png' }), 'ch1', 'poster'],
    ['order 10000', () => liveRecord({ order: 10000 }), 'ch1', 'order'],
    ['url + feedKey', () => liveRecord({ redirect: true, url: 'https://cdn.example.com/x.m3u8', feedKey: HEX32 }), 'ch1', 'feedKey'],
    ['vod with isLive', () => vodRecord({ isLive: false }), 'ch1', 'isLive']
  ])('refuses %s with CATALOG_INVALID_RECORD naming the field, writing nothing', async (_n, make, id, field) => {
    const w = await openWriter()
    const before = w.stats()
    const err = await w.putStream(id, make()).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(CatalogError)
    expect(err).toMatchObject({ code: 'CATALOG_INVALID_RECORD' })
    expect((err as CatalogError).message).toContain(field)
    expect(w.stats()).toEqual(before)
  })

  it.each([['bad id charset', 'a b/c'], ['65-char id', 'x'.repeat(65)]])('refuses a %s with CATALOG_INVALID_KEY naming streamId', async (_n, id) => {
    const w = await openWriter()
    const err = await w.putStream(id, liveRecord()).catch((e: unknown) => e)
    expect(err).toMatchObject({ code: 'CATALOG_INVALID_KEY' })
    expect((err as Error).message).toContain('streamId')
  })

  it('refuses a keypair whose halves do not match, and bad key lengths', async () => {
    const store = await tempStore()
    const a = panelKeyPair()
    const b = panelKeyPair()
    const w = createCatalogWriter({ store, keyPair: { publicKey: a.publicKey, secretKey: b.secretKey } })
    defer(() => w.close())
    await expect(w.ready()).rejects.toMatchObject({ code: 'CATALOG_INVALID_KEYPAIR' })
    expect(() => createCatalogWriter({ store, keyPair: { publicKey: new Uint8Array(31), secretKey: a.secretKey } })).toThrowError(expect.objectContaining({ code: 'CATALOG_INVALID_KEYPAIR' }))
  })

  it('a throwing update or batch writes nothing', async () => {
    const w = await openWriter()
    await w.putStream('ch1', liveRecord())
    const before = w.stats()
    await expect(w.updateStream('ch1', () => { throw new Error('nope') })).rejects.toThrow('nope')
    await expect(w.batch(async (b) => {
      await b.put('catalog/ch2', liveRecord())
      throw new Error('abort')
    })).rejects.toThrow('abort')
    expect(w.stats()).toEqual(before)
    expect(await w.getStream('ch2')).toBeNull()
  })

  it('refuses use after close with CATALOG_CLOSED', async () => {
    const w = await openWriter()
    await w.close()
    await expect(w.getStream('ch1')).rejects.toMatchObject({ code: 'CATALOG_CLOSED' })
  })
})

describe('writer: records and listings', () => {
  it('batch appends several keys atomically and reads its own writes', async () => {
    const w = await openWriter()
    await w.putStream('ch1', liveRecord())
    await w.putUser('ana', userRecord({ wrapped: { ch1: 'aa'.repeat(80), ch2: 'bb'.repeat(80) } }))
    await w.putUser('bob', userRecord({ wrapped: { ch1: 'aa'.repeat(80) } }))
    const before = w.stats()
    // Purge: delete the stream and strip its grant from every user, in one append.
    const result = await w.batch(async (b) => {
      expect(await b.del('catalog/ch1')).toBe(true)
      expect(await b.get('catalog/ch1')).toBeNull()
      for (const name of ['ana', 'bob']) {
        await b.update(`user/${name}`, (u) => {
          if (u === null) return undefined
          const { ch1: _gone, ...wrapped } = u.wrapped
          return { ...u, wrapped }
        })
      }
    })
    expect(result).toEqual({ changed: 3 })
    expect(w.stats().length).toBe(before.length + 3)
    expect(await w.getStream('ch1')).toBeNull()
    expect((await w.getUser('ana'))?.wrapped).toEqual({ ch2: 'bb'.repeat(80) })
    expect((await w.getUser('bob'))?.wrapped).toEqual({})
  })

  it('listUsers pages with prefix, after, limit and next', async () => {
    const w = await openWriter()
    const names = ['al', 'alice', 'Alma', 'bob', 'carol', 'dave', 'eve']
    for (const n of names) await w.putUser(n, userRecord())
    const all: string[] = []
    let after: string | undefined
    for (let i = 0; i < 10; i++) {
      const page = await w.listUsers({ limit: 3, after })
      all.push(...page.users.map((u) => u.username))
      if (page.next === null) break
      after = page.next
    }
    expect(all).toEqual([...names].sort())
    expect((await w.listUsers({ prefix: 'al' })).users.map((u) => u.username)).toEqual(['al', 'alice'])
    expect(await w.listUsers({ prefix: 'al', limit: 1 })).toMatchObject({ next: 'al' })
    expect((await w.listUsers({ prefix: 'al', after: 'al' })).users.map((u) => u.username)).toEqual(['alice'])
    await expect(w.listUsers({ limit: 0 })).rejects.toMatchObject({ code: 'CATALOG_INVALID_ARGUMENT' })
  })

  it('stores and reads every record kind; null vod config deletes it', async () => {
    const w = await openWriter()
    await w.putStream('film', vodRecord())
    await w.putCatMeta({ v: 1, slug: 'news', label: 'Nachrichten', order: 2 })
    await w.putVodConfig({ v: 1, enabled: true, apiBase: 'https://vod.example.com', service: 'acme', sources: { series: 's' }, params: {} })
    await w.putMeta('panel', { v: 1, assetsKey: HEX32B, serviceName: 'Arus' })
    expect(await w.getStream('film')).toEqual(vodRecord())
    expect(await w.listCatMeta()).toEqual([{ v: 1, slug: 'news', label: 'Nachrichten', order: 2 }])
    expect((await w.getVodConfig())?.service).toBe('acme')
    expect((await w.getMeta('panel'))?.serviceName).toBe('Arus')
    expect(await w.putVodConfig(null)).toEqual({ changed: true })
    expect(await w.getVodConfig()).toBeNull()
    await expect(w.putMeta('other', { v: 1, assetsKey: null, serviceName: 'x' } as never)).rejects.toMatchObject({ code: 'CATALOG_INVALID_KEY' })
  })

  it('reopening the same store with the same keypair continues the same catalog', async () => {
    const store = await tempStore()
    const kp = panelKeyPair()
    const w1 = createCatalogWriter({ store, keyPair: kp })
    await w1.ready()
    await w1.putStream('ch1', liveRecord())
    const { length } = w1.stats()
    await w1.close()
    const w2 = createCatalogWriter({ store, keyPair: kp })
    defer(() => w2.close())
    expect(await w2.getStream('ch1')).toEqual(liveRecord())
    expect(w2.stats().length).toBe(length)
  })
})

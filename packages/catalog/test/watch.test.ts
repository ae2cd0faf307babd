import { afterEach, describe, expect, it } from 'vitest'
import { createCatalogWriter, openCatalogReader, WATCH_HISTORY_MAX, watchRange } from '@arus/catalog'
import type { CatalogWriter, RangeChange, StreamRecord } from '@arus/catalog'
import { changeQueue, cleanup, defer, liveRecord, panelKeyPair, replicate, tempStore, userRecord } from './helpers.js'

afterEach(cleanup)

async function openWriter (): Promise<CatalogWriter> {
  const w = createCatalogWriter({ store: await tempStore(), keyPair: panelKeyPair() })
  defer(() => w.close())
  await w.ready()
  return w
}

/** Folds change batches into a key → title view until `done(view)` holds (bounded). */
async function until (q: ReturnType<typeof changeQueue>, view: Map<string, string | null>, done: (v: Map<string, string | null>) => boolean): Promise<void> {
  while (!done(view)) {
    for (const { key, value } of await q.next(10_000)) view.set(key, value === null ? null : (value as StreamRecord).title)
  }
}

const titled = (title: string): StreamRecord => liveRecord({ title })

describe('watchRange on the writer', () => {
  it('reports puts and deletes of its range only, and nothing for unchanged puts', async () => {
    const w = await openWriter()
    await w.putStream('a', titled('A'))
    const q = changeQueue()
    const watch = watchRange(w.bee, 'catalog/', q.push)
    defer(() => watch.close())
    await watch.ready()

    await w.putStream('b', titled('B'))
    expect(await q.next()).toEqual([{ key: 'catalog/b', value: titled('B') }])
    await w.putStream('b', titled('B')) // unchanged: nothing appended, nothing reported
    await w.putUser('ana', userRecord()) // another prefix
    await w.deleteStream('a')
    expect(await q.next()).toEqual([{ key: 'catalog/a', value: null }])
    expect(q.pending()).toBe(0)
  })

  it('one atomic batch arrives as one change set; initial: true reports the starting content', async () => {
    const w = await openWriter()
    await w.putStream('x', titled('X'))
    const q = changeQueue()
    const watch = w.watch('catalog/', q.push, { initial: true })
    defer(() => watch.close())
    await watch.ready()
    expect(await q.next()).toEqual([{ key: 'catalog/x', value: titled('X') }])
    await w.batch(async (b) => {
      for (const id of ['c', 'a', 'b']) await b.put(`catalog/${id}`, titled(id))
    })
    expect((await q.next()).map((c: RangeChange) => c.key)).toEqual(['catalog/a', 'catalog/b', 'catalog/c'])
  })

  it('a short gap is read block by block and a long one diffed: the same changes either way', async () => {
    const w = await openWriter()
    for (const id of ['gone', 'kept']) await w.putStream(id, titled(id))
    const q = changeQueue()
    const watch = w.watch('catalog/', q.push)
    defer(() => watch.close())
    await watch.ready()
    for (const n of [5, WATCH_HISTORY_MAX + 6]) {
      // One batch: n appends seen by one pass. A key put and then deleted, a key put twice,
      // a key deleted, a key rewritten with its own bytes, and a key of another prefix.
      await w.batch(async (b) => {
        await b.put('catalog/brief', titled(`brief ${n}`))
        await b.del('catalog/brief')
        await b.put('catalog/twice', titled('first'))
        await b.put('catalog/twice', titled(`second ${n}`))
        await b.del('catalog/gone')
        await b.put('catalog/kept', titled('kept'))
        await b.put('user/ana', userRecord({ tokenVersion: n }))
        for (let i = 0; i < n - 5; i++) await b.put(`catalog/n${n}-${i}`, titled(`${i}`))
      })
      const changes = await q.next()
      const fillers = Array.from({ length: n - 5 }, (_, i) => `catalog/n${n}-${i}`)
      expect(changes.map((c: RangeChange) => c.key)).toEqual(['catalog/gone', 'catalog/twice', ...fillers].sort())
      expect(changes.find((c: RangeChange) => c.key === 'catalog/gone')?.value).toBeNull()
      expect(changes.find((c: RangeChange) => c.key === 'catalog/twice')?.value).toEqual(titled(`second ${n}`))
      expect(q.pending()).toBe(0)
      await w.putStream('gone', titled('gone')) // back for the next round
      expect(await q.next()).toEqual([{ key: 'catalog/gone', value: titled('gone') }])
    }
  })

  it('a live edit is read from the core without a snapshot session; a long gap is diffed on one', async () => {
    const w = await openWriter()
    await w.putStream('a', titled('A'))
    const q = changeQueue()
    const watch = w.watch('catalog/', q.push)
    defer(() => watch.close())
    await watch.ready()
    let snapshots = 0
    const snapshot = w.bee.snapshot.bind(w.bee)
    w.bee.snapshot = () => { snapshots++; return snapshot() }
    await w.putStream('a', titled('A2'))
    expect(await q.next()).toEqual([{ key: 'catalog/a', value: titled('A2') }])
    expect(snapshots).toBe(0)
    await w.batch(async (b) => {
      for (let i = 0; i <= WATCH_HISTORY_MAX; i++) await b.put(`catalog/n${i}`, titled(`${i}`))
    })
    expect(await q.next()).toHaveLength(WATCH_HISTORY_MAX + 1)
    expect(snapshots).toBe(1)
  })

  it('one watch over several prefixes: one change set per pass for all of them, other prefixes left out', async () => {
    const w = await openWriter()
    await w.putStream('one', titled('one'))
    await w.putCatMeta({ v: 1, slug: 'news', label: 'News' })
    await w.putUser('ana', userRecord())
    const q = changeQueue()
    const watch = w.watch(['catalog/', 'catmeta/'], q.push, { initial: true })
    defer(() => watch.close())
    await watch.ready()
    expect((await q.next()).map((c: RangeChange) => c.key)).toEqual(['catalog/one', 'catmeta/news']) // the rescan covers both
    for (const n of [3, WATCH_HISTORY_MAX + 3]) { // replayed block by block, then diffed
      await w.batch(async (b) => {
        await b.put('catmeta/news', { v: 1, slug: 'news', label: `News ${n}` })
        await b.put('user/ana', userRecord({ tokenVersion: n }))
        for (let i = 0; i < n - 2; i++) await b.put(`catalog/n${n}-${i}`, titled(`${i}`))
      })
      const changes = await q.next()
      expect(changes.map((c: RangeChange) => c.key)).toEqual([...Array.from({ length: n - 2 }, (_, i) => `catalog/n${n}-${i}`).sort(), 'catmeta/news'])
      expect(changes.at(-1)?.value).toMatchObject({ label: `News ${n}` })
      expect(q.pending()).toBe(0)
    }
    await w.putUser('ana', userRecord({ tokenVersion: 99 }))
    await w.putStream('one', titled('one again'))
    expect(await q.next()).toEqual([{ key: 'catalog/one', value: titled('one again') }])
    expect(() => w.watch([], q.push)).toThrow(/at least one prefix/)
  })

  it('a burst of concurrent puts is fully reported', async () => {
    const w = await openWriter()
    const q = changeQueue()
    const watch = w.watch('catalog/', q.push)
    defer(() => watch.close())
    await watch.ready()
    const ids = Array.from({ length: 20 }, (_, i) => `ch${i}`)
    await Promise.all(ids.map((id) => w.putStream(id, titled(id))))
    const view = new Map<string, string | null>()
    await until(q, view, (v) => v.size === ids.length)
    for (const id of ids) expect(view.get(`catalog/${id}`)).toBe(id)
  })

  it('keeps working across truncation of the core', async () => {
    const w = await openWriter()
    await w.putStream('a', titled('A')) // blocks: 0 header, 1 a
    await w.putStream('b', titled('B')) // 2
    await w.putStream('c', titled('C')) // 3
    const q = changeQueue()
    const watch = w.watch('catalog/', q.push)
    defer(() => watch.close())
    await watch.ready()

    await w.bee.core.truncate(2) // drop b and c
    expect(w.stats().fork).toBe(1)
    const view = new Map<string, string | null>()
    await until(q, view, (v) => v.get('catalog/b') === null && v.get('catalog/c') === null)
    expect(view.has('catalog/a')).toBe(false)

    await w.putStream('d', titled('D'))
    await until(q, view, (v) => v.get('catalog/d') === 'D')
    await w.putStream('a', titled('A2'))
    await until(q, view, (v) => v.get('catalog/a') === 'A2')

    // Truncate and refill to the same length before the watch runs: still reported.
    const len = w.stats().length
    await w.bee.core.truncate(len - 1)
    await w.putStream('a', titled('A3'))
    expect(w.stats().length).toBe(len)
    await until(q, view, (v) => v.get('catalog/a') === 'A3')
  })
})

/** A writer with streams a, b and c, and a reader on another store (not yet replicating). */
async function writerAndReader () {
  const kp = panelKeyPair()
  const ws = await tempStore()
  const rs = await tempStore()
  const w = createCatalogWriter({ store: ws, keyPair: kp })
  defer(() => w.close())
  await w.ready()
  for (const id of ['a', 'b', 'c']) await w.putStream(id, titled(id.toUpperCase()))
  const r = openCatalogReader({ store: rs, panelPublicKey: kp.publicKey })
  defer(() => r.close())
  await r.ready()
  return { ws, rs, w, r }
}

describe('watchRange on a replicated reader', () => {
  it('settled() resolves only after every change up to the replica\'s version was reported', async () => {
    const { ws, rs, r } = await writerAndReader()
    const q = changeQueue()
    const watch = r.watch('catalog/', q.push, { initial: true })
    defer(() => watch.close())
    await watch.ready() // scanned the empty replica: nothing yet
    replicate(ws, rs)
    await r.update({ wait: true })
    await watch.settled() // no waiting on the queue: the reported set is complete now
    const view = new Map<string, string | null>()
    while (q.pending() > 0) for (const { key, value } of await q.next()) view.set(key, value === null ? null : (value as StreamRecord).title)
    expect([...view]).toEqual([['catalog/a', 'A'], ['catalog/b', 'B'], ['catalog/c', 'C']])
    await watch.settled() // caught up: returns at once, reports nothing more
    expect(q.pending()).toBe(0)
  })

  it('reports a batch of edits that reached the replica as several appends at once', async () => {
    const { ws, rs, w, r } = await writerAndReader()
    const q = changeQueue()
    const watch = r.watch('catalog/', q.push)
    defer(() => watch.close())
    replicate(ws, rs)
    await r.update({ wait: true })
    await watch.settled()
    while (q.pending() > 0) await q.next() // the replicated starting content
    await w.batch(async (b) => {
      await b.put('catalog/a', titled('A2'))
      await b.del('catalog/b')
      await b.put('catalog/d', titled('D'))
    })
    const view = new Map<string, string | null>()
    await until(q, view, (v) => v.size === 3)
    expect([...view].sort()).toEqual([['catalog/a', 'A2'], ['catalog/b', null], ['catalog/d', 'D']])
  })

  it('follows the panel across a truncation', async () => {
    const { ws, rs, w, r } = await writerAndReader()
    replicate(ws, rs)
    await r.update({ wait: true })

    const q = changeQueue()
    const watch = r.watch('catalog/', q.push, { initial: true })
    defer(() => watch.close())
    await watch.ready()
    const view = new Map<string, string | null>()
    await until(q, view, (v) => v.get('catalog/c') === 'C')

    await w.bee.core.truncate(2) // keep only a
    await w.putStream('d', titled('D'))
    await until(q, view, (v) => v.get('catalog/b') === null && v.get('catalog/c') === null && v.get('catalog/d') === 'D')
    expect(view.get('catalog/a')).toBe('A')
    expect(r.stats().fork).toBe(1)

    await w.putStream('a', titled('A2'))
    await until(q, view, (v) => v.get('catalog/a') === 'A2')
    expect((await r.listStreams()).map((s) => `${s.id}:${s.record.title}`)).toEqual(['a:A2', 'd:D'])
  })

  it('catches up after a reorg that happened while it was disconnected', async () => {
    const { ws, rs, w, r } = await writerAndReader() // length 4
    let stop = replicate(ws, rs)
    await r.update({ wait: true })
    const q = changeQueue()
    const watch = r.watch('catalog/', q.push, { initial: true })
    defer(() => watch.close())
    await watch.ready()
    const view = new Map<string, string | null>()
    await until(q, view, (v) => v.get('catalog/c') === 'C')

    // Same length, new fork: c rewritten while the reader was away.
    stop()
    await w.bee.core.truncate(3)
    await w.putStream('c', titled('C2'))
    expect(w.stats()).toMatchObject({ length: 4, fork: 1 })
    stop = replicate(ws, rs)
    await until(q, view, (v) => v.get('catalog/c') === 'C2')

    // Longer, new fork: b and c dropped, d and e added while away.
    stop()
    await w.bee.core.truncate(2)
    await w.putStream('d', titled('D'))
    await w.putStream('e', titled('E'))
    expect(w.stats()).toMatchObject({ length: 4, fork: 2 })
    await w.putStream('f', titled('F'))
    replicate(ws, rs)
    await until(q, view, (v) => v.get('catalog/f') === 'F')
    expect(Object.fromEntries(view)).toEqual({ 'catalog/a': 'A', 'catalog/b': null, 'catalog/c': null, 'catalog/d': 'D', 'catalog/e': 'E', 'catalog/f': 'F' })
  })
})

describe('watchRange: the next block read ahead on a reader', () => {
  type Rx = { getBlock (index: number): Promise<unknown> }
  type Storage = { read (...args: unknown[]): Rx }

  it('a replicated edit is reported from the bytes that came with it, while the storage read of its block is still held', async () => {
    const { ws, rs, w, r } = await writerAndReader()
    replicate(ws, rs)
    await r.update({ wait: true })
    const core = r.bee.core
    const state = (core as unknown as { state: { storage: Storage; sessions: unknown[] } }).state
    const sessionsBefore = state.sessions.length
    const q = changeQueue()
    const watch = r.watch('catalog/', q.push)
    await watch.settled()
    while (q.pending() > 0) await q.next()
    // Without the report from the verified upgrade (the next test), as when a pass is under way.
    core.removeAllListeners('verified-upgrade')

    // Every storage read of the next block made once the replica has it waits for `gate`.
    const target = core.length
    let release = (): void => {}
    const gate = new Promise<void>((resolve) => { release = resolve })
    let held = 0
    const storage = state.storage
    const read = storage.read
    storage.read = function (this: Storage, ...args: unknown[]) {
      const rx = read.apply(this, args)
      const getBlock = rx.getBlock
      rx.getBlock = function (this: Rx, index: number) {
        const block = getBlock.call(this, index)
        if (index !== target || core.length <= target) return block
        held++
        return block.then(async (value) => { await gate; return value })
      }
      return rx
    }
    defer(() => { storage.read = read; release() })

    await w.putStream('a', titled('A2'))
    const changes = await q.next(5_000) // the old path waited for the held read: nothing in time
    expect(changes.map((c) => [c.key, (c.value as StreamRecord | null)?.title])).toEqual([['catalog/a', 'A2']])
    expect(held).toBeGreaterThan(0) // the storage read was made, and is still held
    release()

    // The next edit is read ahead too; close() ends the session the read went through.
    expect(state.sessions.length).toBe(sessionsBefore + 1)
    await watch.close()
    expect(state.sessions.length).toBe(sessionsBefore)
  })

  it('a replicated edit is reported once hypercore verified it, while its storage write is still held', async () => {
    const { ws, rs, w, r } = await writerAndReader()
    replicate(ws, rs)
    await r.update({ wait: true })
    const core = r.bee.core
    const q = changeQueue()
    const watch = r.watch('catalog/', q.push)
    defer(() => watch.close())
    await watch.settled()
    while (q.pending() > 0) await q.next()

    // Every storage write of the replica waits for `gate` (the block, its bitfield, the new head).
    type Tx = { flush (...args: unknown[]): Promise<unknown> }
    const storage = (core as unknown as { state: { storage: { write (...args: unknown[]): Tx } } }).state.storage
    const write = storage.write
    let release = (): void => {}
    const gate = new Promise<void>((resolve) => { release = resolve })
    let held = 0
    storage.write = function (this: unknown, ...args: unknown[]) {
      const tx = write.apply(this, args)
      const flush = tx.flush
      tx.flush = async function (this: Tx, ...a: unknown[]) { held++; await gate; return flush.apply(this, a) }
      return tx
    }
    defer(() => { storage.write = write; release() })

    const length = core.length
    await w.putStream('a', titled('A2'))
    const changes = await q.next(5_000) // reported from the verified upgrade: the write is held
    expect(changes.map((c) => [c.key, (c.value as StreamRecord | null)?.title])).toEqual([['catalog/a', 'A2']])
    expect(held).toBeGreaterThan(0)
    expect(core.length).toBe(length) // not stored yet
    await watch.settled() // what is reported is ahead of the replica: settled, no rescan
    expect(q.pending()).toBe(0)
    // A read waits out the write, so it returns what the watch reported.
    let read: StreamRecord | null | undefined
    const reading = r.getStream('a').then((x) => { read = x })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(read).toBeUndefined()

    storage.write = write
    release()
    await reading
    expect(read?.title).toBe('A2')
    expect(core.length).toBe(length + 1)
    await watch.settled() // the append's pass finds nothing new
    expect(q.pending()).toBe(0)
    await w.putStream('b', titled('B2')) // and the next edit is reported as usual
    expect((await q.next(5_000)).map((c) => [c.key, (c.value as StreamRecord | null)?.title])).toEqual([['catalog/b', 'B2']])
  })

  it('a read ahead that fails leaves the edit to the storage read', async () => {
    const { ws, rs, w, r } = await writerAndReader()
    replicate(ws, rs)
    await r.update({ wait: true })
    const q = changeQueue()
    const watch = watchRange(r.bee, 'catalog/', q.push)
    defer(() => watch.close())
    await watch.settled()
    // End the read ahead's session under the watch: the pending read rejects.
    await (watch as unknown as { nextSession: { close (): Promise<void> } }).nextSession.close()
    await w.putStream('a', titled('A3'))
    expect((await q.next(5_000)).map((c) => [c.key, (c.value as StreamRecord | null)?.title])).toEqual([['catalog/a', 'A3']])
  })

  it('the writer reads its own appends from storage: no read ahead on a writable core', async () => {
    const w = await openWriter()
    const state = (w.bee.core as unknown as { state: { sessions: unknown[] } }).state
    const before = state.sessions.length
    const q = changeQueue()
    const watch = watchRange(w.bee, 'catalog/', q.push)
    defer(() => watch.close())
    await w.putStream('a', titled('A'))
    expect((await q.next(5_000)).map((c) => c.key)).toEqual(['catalog/a'])
    expect(state.sessions.length).toBe(before)
  })
})

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type Corestore from 'corestore'
import type Hyperswarm from 'hyperswarm'
import { createFeedWriter, parsePlaylist, purgeFeed, type FeedWriter, type UploadShapingInit } from '@arus/feed'
import type { Logger } from '@arus/service'
import { createStore } from '@arus/swarm'
import { hex } from '../util.js'
import { inputFingerprint } from './input.js'
import type { Channel } from './model.js'
import type { ChannelStores, FeedIdentity } from './store.js'

/**
 * Feed generations and seeding (spec 2 "Broadcaster facts", ARCHITECTURE.md "Feeds"). A disk
 * channel's generation is one Hyperdrive in its own namespace of the daemon's Corestore,
 * reopened across restarts while the input stays the same; a changed input or a rotate
 * mints the next one and retires the old, which keeps seeding for a grace window and is
 * then purged. A ram channel gets a temp Corestore and a fresh drive at each start. The
 * content key never changes, so grants keep working across generations.
 */

export interface OpenFeed {
  writer: FeedWriter
  generation: number
  /** First media sequence number free in this generation (continues a reopened feed). */
  nextSequence: number
  close(): Promise<void>
}

export interface FeedHost {
  /** Opens the channel's current generation, minting a new one when none fits. */
  open(channel: Channel): Promise<OpenFeed>
  /** Mints the next disk generation now and retires the current one (rotate). */
  rotate(channel: Channel, current: OpenFeed): Promise<OpenFeed>
  /** The channel's content key (created on first use). */
  key(id: string): Promise<Uint8Array>
  close(): Promise<void>
}

export interface FeedHostComponents {
  store: Corestore
  swarm: Hyperswarm
  stores: ChannelStores
  log: Logger
}

const namespaceFor = (id: string, generation: number) => `arus/feed/${id}/${generation}`
const ANNOUNCE_WAIT_MS = 10_000
const LEGACY_ROOT = ''

export interface FeedHostSettings {
  graceMs: number
  /** Upload shaping of every live feed writer (ORIGIN_PEERS_PER_BLOCK / ORIGIN_HOLD_MS); false = off. */
  uploadShaping: UploadShapingInit | false
}

export function createFeedHost (c: FeedHostComponents, init: FeedHostSettings): FeedHost {
  const ramStores = new Set<Corestore>()
  const purgeTimers = new Set<NodeJS.Timeout>()
  /** Retired generations still seeding (rotate), by feedKey: closed before their purge. */
  const seeding = new Map<string, OpenFeed>()
  const storeFor = (ns: string) => (ns === LEGACY_ROOT ? c.store.session() : c.store.namespace(ns))
  // Feeds in ram stores must replicate on every connection, like the disk store (main.ts).
  c.swarm.on('connection', (conn) => { for (const s of ramStores) s.replicate(conn) })

  async function identity (id: string): Promise<FeedIdentity> {
    const existing = c.stores.identities.get(id)
    if (existing) return existing
    const fresh: FeedIdentity = { key: hex(crypto.getRandomValues(new Uint8Array(32))), generation: 0, namespace: null, feedKey: null, fingerprint: null, retired: [] }
    await c.stores.identities.set(id, fresh)
    return fresh
  }

  async function seed (writer: FeedWriter, extra: () => Promise<void>): Promise<OpenFeed['close']> {
    await writer.ready()
    const discovery = c.swarm.join(writer.discoveryKey, { server: true, client: false })
    // Announced before the register goes out, so a viewer tuning at once finds this peer;
    // bounded, because on a slow DHT the announce finishes in the background anyway.
    let timer: NodeJS.Timeout | undefined
    await Promise.race([discovery.flushed().catch(() => {}), new Promise((resolve) => { timer = setTimeout(resolve, ANNOUNCE_WAIT_MS) })])
    clearTimeout(timer)
    return async () => {
      await c.swarm.leave(writer.discoveryKey).catch(() => {})
      await writer.close().catch(() => {})
      await extra()
    }
  }

  async function openDisk (ch: Channel, id: FeedIdentity, mint: boolean): Promise<OpenFeed> {
    let current = id
    if (mint || current.namespace === null) {
      const generation = current.namespace === null && current.feedKey === null ? current.generation : current.generation + 1
      const namespace = ch.legacy && generation === 0 ? LEGACY_ROOT : namespaceFor(ch.id, generation)
      const retiring = current.namespace !== null && current.feedKey !== null
        ? { namespace: current.namespace, feedKey: current.feedKey, retiredAt: Date.now() }
        : null
      current = { ...current, generation, namespace, feedKey: null, fingerprint: inputFingerprint(ch.input), retired: retiring ? [...current.retired, retiring] : current.retired }
      if (retiring) schedulePurge(ch.id, current.key, retiring)
    }
    const ns = current.namespace as string
    const writer = createFeedWriter({ store: storeFor(ns), encryptionKey: Buffer.from(current.key, 'hex'), feedKey: current.feedKey ? Buffer.from(current.feedKey, 'hex') : null, uploadShaping: init.uploadShaping })
    const close = await seed(writer, async () => {})
    current = { ...current, feedKey: hex(writer.feedKey) }
    await c.stores.identities.set(ch.id, current)
    return { writer, generation: current.generation, nextSequence: await nextSequenceOf(writer), close }
  }

  async function openRam (ch: Channel, id: FeedIdentity): Promise<OpenFeed> {
    const dir = await mkdtemp(join(tmpdir(), `arus-ram-${ch.id}-`))
    const store = createStore(dir)
    ramStores.add(store)
    for (const conn of c.swarm.connections) store.replicate(conn)
    const writer = createFeedWriter({ store: store.session(), encryptionKey: Buffer.from(id.key, 'hex'), feedKey: null, uploadShaping: init.uploadShaping })
    const close = await seed(writer, async () => {
      ramStores.delete(store)
      await store.close().catch(() => {})
      await rm(dir, { recursive: true, force: true })
    })
    // A disk generation left from before a switch to ram is retired like a rotated one.
    const retiring = id.namespace !== null && id.feedKey !== null ? { namespace: id.namespace, feedKey: id.feedKey, retiredAt: Date.now() } : null
    if (retiring) schedulePurge(ch.id, id.key, retiring)
    const generation = id.generation + 1
    await c.stores.identities.set(ch.id, {
      ...id, generation, namespace: null, feedKey: hex(writer.feedKey), fingerprint: inputFingerprint(ch.input), retired: retiring ? [...id.retired, retiring] : id.retired
    })
    return { writer, generation, nextSequence: 0, close }
  }

  /** Purges a retired generation's cores once its grace window has passed. */
  function schedulePurge (channelId: string, key: string, { namespace, feedKey, retiredAt }: FeedIdentity['retired'][number]): void {
    const run = async () => {
      try {
        const live = seeding.get(feedKey)
        seeding.delete(feedKey)
        await live?.close()
        await purgeFeed(storeFor(namespace), feedKey, key)
        const idn = c.stores.identities.get(channelId)
        if (idn) await c.stores.identities.set(channelId, { ...idn, retired: idn.retired.filter((r) => r.feedKey !== feedKey) })
        c.log.info({ event: 'feed.purged', channel: channelId, feedKey }, 'retired feed generation purged')
      } catch (err) {
        c.log.warn({ event: 'feed.purge-failed', channel: channelId, err: (err as Error).message }, 'purge of a retired generation failed')
      }
    }
    const timer = setTimeout(() => { purgeTimers.delete(timer); void run() }, Math.max(0, retiredAt + init.graceMs - Date.now()))
    timer.unref()
    purgeTimers.add(timer)
  }

  // Generations retired before a restart: purge them when their window ends.
  for (const [id, idn] of Object.entries(c.stores.identities.all())) {
    for (const r of idn.retired) schedulePurge(id, idn.key, r)
  }

  return {
    async open (ch) {
      const id = await identity(ch.id)
      if (ch.buffer === 'ram') return openRam(ch, id)
      const changed = id.fingerprint !== null && id.fingerprint !== inputFingerprint(ch.input)
      return openDisk(ch, id, changed)
    },
    async rotate (ch, current) {
      const id = await identity(ch.id)
      // The old generation keeps seeding through the grace window; its purge closes it first.
      if (id.feedKey) seeding.set(id.feedKey, current)
      return openDisk(ch, id, true)
    },
    async key (id) { return Buffer.from((await identity(id)).key, 'hex') },
    async close () {
      for (const t of purgeTimers) clearTimeout(t)
      purgeTimers.clear()
      await Promise.allSettled([...seeding.values()].map((f) => f.close()))
      seeding.clear()
    }
  }
}

/** The media sequence after the last one a reopened generation holds. */
async function nextSequenceOf (writer: FeedWriter): Promise<number> {
  const last = writer.stats().lastSequence
  let fromPlaylist = -1
  try {
    const text = await writer.drive.get('/index.m3u8', { wait: false })
    if (text) {
      const p = parsePlaylist(text.toString('utf8'))
      fromPlaylist = p.mediaSequence + p.segments.length - 1
    }
  } catch {
    // No playlist yet (a fresh generation): start from the writer's own count.
  }
  return Math.max(last ?? -1, fromPlaylist) + 1
}

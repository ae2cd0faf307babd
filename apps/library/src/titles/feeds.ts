import type Corestore from 'corestore'
import type Hyperswarm from 'hyperswarm'
import { createFeedWriter, purgeFeed, type FeedWriter } from '@arus/feed'

const ANNOUNCE_WAIT_MS = 10_000

/** Each title generation is one Hyperdrive in its own namespace of the library's Corestore. */
export const namespaceFor = (id: string, generation: number): string => `arus/title/${id}/${generation}`

/** A generation's writer (keep-all VOD layout), opened or minted. */
export function openWriter (store: Corestore, id: string, generation: number, key: Uint8Array, feedKey: string | null): FeedWriter {
  return createFeedWriter({ store: store.namespace(namespaceFor(id, generation)), encryptionKey: key, feedKey: feedKey ? Buffer.from(feedKey, 'hex') : null, keep: 'all' })
}

/** Seeds a ready writer: joins its topic as a server; the announce is awaited, bounded. */
export async function seed (swarm: Hyperswarm, writer: FeedWriter): Promise<void> {
  await writer.ready()
  const discovery = swarm.join(writer.discoveryKey, { server: true, client: false })
  let timer: NodeJS.Timeout | undefined
  await Promise.race([discovery.flushed().catch(() => {}), new Promise((resolve) => { timer = setTimeout(resolve, ANNOUNCE_WAIT_MS) })])
  clearTimeout(timer)
}

/** Stops seeding a writer and closes it. */
export async function unseed (swarm: Hyperswarm, writer: FeedWriter): Promise<void> {
  await swarm.leave(writer.discoveryKey).catch(() => {})
  await writer.close().catch(() => {})
}

/**
 * Reclaims one generation's disk. Without a known feed key (an ingest cut off before it was
 * recorded) the namespace's drive is opened to learn it: a drive minted in a namespace always
 * gets the same key there.
 */
export async function purgeGeneration (store: Corestore, id: string, generation: number, key: Uint8Array, feedKey: string | null): Promise<void> {
  let known = feedKey
  if (known === null) {
    const w = openWriter(store, id, generation, key, null)
    try {
      await w.ready()
      known = Buffer.from(w.feedKey).toString('hex')
    } finally {
      await w.close().catch(() => {})
    }
  }
  await purgeFeed(store.namespace(namespaceFor(id, generation)), known, Buffer.from(key).toString('hex'))
}

import { blake2b256, fromHex } from '@arus/crypto'
import b4a from 'b4a'
import { DISCOVERY_NAMESPACE } from './constants.js'
import { FeedSession } from './feed-session.js'
import type { Network } from './network.js'
import type { TopicHandle } from './topics.js'
import type { WarmHandle } from './zap.js'

/** Hypercore's discovery key of a core key (the feed topic), computed without opening the feed. */
export function feedTopic (feedKey: string): Uint8Array {
  return blake2b256(b4a.from(DISCOVERY_NAMESPACE, 'utf8'), fromHex(feedKey, 32))
}

/** How long one zap tick waits for a neighbor's playlist and newest segment. */
const WARM_FETCH_MS = 10_000

/**
 * A zap neighbor: its feed open and joined, its newest segment downloaded at each tick. The
 * speed of each new segment's download, as a multiple of realtime, feeds the 'thin' check.
 */
export async function warmNeighbor (net: Network, id: string, feedKey: string, encryptionKey: Uint8Array, panelKey: string | null, now: () => number): Promise<WarmHandle<FeedSession>> {
  const session = new FeedSession(net.store, net.topics, { feedKey, encryptionKey, streamId: id, type: 'live', notAPeer: panelKey, now })
  await session.open()
  let newest: string | null = null
  let first = true
  return {
    id,
    async tick () {
      const list = await session.playlist(WARM_FETCH_MS, now())
      const seg = list.segments.at(-1)
      if (seg === undefined || seg.uri === newest) return null
      newest = seg.uri
      const started = now()
      const fetched = await session.fetchNow('/' + seg.uri, WARM_FETCH_MS)
      // The first fetch includes finding and dialing peers: it says nothing about the pipe.
      if (first) { first = false; return null }
      if (!fetched) return 0
      const took = Math.max(1, now() - started)
      return (seg.duration * 1000) / took
    },
    adopt: () => session,
    close: () => session.close()
  }
}

/** Prewarm: the DHT topics of these feeds, joined client-only until a feed of them opens. */
export function prewarmTopics (net: Network, feedKeys: string[]): TopicHandle[] {
  return feedKeys.map((k) => net.topics.join(feedTopic(k), 'prewarm'))
}

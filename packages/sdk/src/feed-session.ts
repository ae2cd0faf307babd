import b4a from 'b4a'
import type Corestore from 'corestore'
import type Hypercore from 'hypercore'
import { openFeedReader, parseFeedPath, refuseUploads, type FeedReader, type ParsedPlaylist, type UploadRefusal } from '@arus/feed'
import { fromHex } from '@arus/crypto'
import { StartQuiet } from './start-quiet.js'
import type { TopicHandle, Topics } from './topics.js'

export interface FeedSessionInit {
  feedKey: string
  encryptionKey: Uint8Array
  streamId: string | null
  type: 'live' | 'vod'
  /** Hex key of a peer that never counts as serving the feed (the panel, which may hold a few blocks). */
  notAPeer: string | null
  /** Clock (epoch ms). Default Date.now. */
  now?: () => number
  /**
   * Whether read-ahead starts quiet: only the segment the tune prefetches until the player asks
   * for its second segment (a cold start; start-quiet.ts). False for a session that takes over
   * mid-play (a follow swap). Default true.
   */
  quietStart?: boolean
}

/** Bytes of this feed exchanged with one peer, and the peer's address as this device's socket sees it. */
interface PeerBytes { downloaded: number; uploaded: number; remote: string | null }

type CountedPeer = { remotePublicKey?: Uint8Array; stream?: { rawStream?: { remoteHost?: unknown; remotePort?: unknown } } }

/** `host:port` of the UDP path a peer's connection runs on (a NAT's outside address for a peer behind one), if known. */
function remoteOf (peer: CountedPeer): string | null {
  const raw = peer.stream?.rawStream
  return typeof raw?.remoteHost === 'string' && typeof raw.remotePort === 'number' ? `${raw.remoteHost}:${raw.remotePort}` : null
}

/** A read-ahead download starts at the latest this long after the one before it (ms). */
const READ_AHEAD_STEP_MS = 1_000
/** Where players start a live stream: this many target durations behind the live edge. */
const LIVE_START_TARGETS = 3

const delay = (ms: number): Promise<void> => new Promise((resolve) => { setTimeout(resolve, ms).unref?.() })

/** Index of the segment that holds the point LIVE_START_TARGETS target durations before the end. */
export function liveStartIndex (list: ParsedPlaylist): number {
  const target = list.targetDuration > 0 ? list.targetDuration : Math.max(...list.segments.map((s) => s.duration), 0)
  let back = LIVE_START_TARGETS * target
  for (let i = list.segments.length - 1; i >= 0; i--) {
    back -= list.segments[i]!.duration
    if (back <= 0) return i
  }
  return 0
}

/**
 * One open feed: an `@arus/feed` reader on its own store session, its DHT topic membership
 * (announced per the upload policy), byte counters per peer, and live-edge read-ahead.
 * `reopen()` evicts the cached open and starts a fresh one behind the same session object
 * (spec 3 tune ladder, 'feed:retune').
 */
export class FeedSession {
  readonly feedKey: string
  readonly streamId: string | null
  readonly type: 'live' | 'vod'
  private readonly encryptionKey: Uint8Array
  private readonly notAPeer: string | null
  private readonly startQuiet: StartQuiet | null
  private readerRef: FeedReader | null = null
  private topic: TopicHandle | null = null
  private readonly bytes = new Map<string, PeerBytes>()
  private readonly detach: Array<() => void> = []
  /** The reader's cores, each with its upload refusal while the policy is 'client-only'. */
  private readonly refusals = new Map<Hypercore, UploadRefusal | null>()
  private readonly downloads = new Map<string, { destroy(): void }>()
  private closed = false
  /** Last time the playlist changed (live advance), epoch ms. */
  lastAdvanceAt = 0
  private lastPlaylistText = ''
  private lastPlaylist: ParsedPlaylist | null = null
  /** Highest segment sequence the freshest playlist read lists (null before one was read). */
  newestListed: number | null = null

  constructor (private readonly store: Corestore, private readonly topics: Topics, init: FeedSessionInit) {
    this.feedKey = init.feedKey
    this.encryptionKey = init.encryptionKey
    this.streamId = init.streamId
    this.type = init.type
    this.notAPeer = init.notAPeer
    this.startQuiet = init.quietStart === false ? null : new StartQuiet(init.now ?? Date.now)
  }

  get reader (): FeedReader {
    if (this.readerRef === null) throw new Error('feed session is not open')
    return this.readerRef
  }

  get isOpen (): boolean { return this.readerRef !== null && !this.closed }

  /** Opens the reader and joins its topic (idempotent). */
  async open (): Promise<void> {
    if (this.readerRef !== null || this.closed) return
    const reader = openFeedReader({ store: this.store, feedKey: fromHex(this.feedKey, 32), encryptionKey: this.encryptionKey })
    try {
      await reader.ready()
    } catch (err) {
      await reader.close().catch(() => {})
      throw err
    }
    if (this.closed) { await reader.close().catch(() => {}); return }
    this.readerRef = reader
    this.topic ??= this.topics.join(reader.discoveryKey, 'feed')
    // While the DHT lookup runs, a waiting update must wait for it rather than give up at once.
    const found = reader.drive.findingPeers()
    this.topic.flushed().then(found, found)
    this.count(reader.drive.core)
    reader.drive.getBlobs().then((blobs) => { if (blobs !== null && this.readerRef === reader) this.count(blobs.core) }, () => {})
  }

  /** Evicts the cached open and opens the feed again (same topic). */
  async reopen (): Promise<void> {
    await this.closeReader()
    await this.open()
  }

  /** A fresh DHT lookup of the topic that nothing waits for (the mesh refresh while playing). */
  async refreshTopic (): Promise<void> {
    await this.topic?.refresh()
  }

  /** Whether `topic` is this feed's DHT topic. */
  isTopic (topic: Uint8Array): boolean {
    return this.topic !== null && b4a.equals(this.topic.topic, topic)
  }

  /** Forces a fresh DHT lookup of the topic (waiting updates wait for it, as at open). */
  async relookup (): Promise<void> {
    const found = this.readerRef?.drive.findingPeers()
    try {
      await this.topic?.refresh()
    } finally {
      found?.()
    }
  }

  /** Remote public keys (hex) of the peers replicating this feed. */
  peerKeys (): Set<string> {
    const keys = new Set<string>()
    const r = this.readerRef
    if (r === null) return keys
    for (const core of [r.drive.core, r.drive.blobs?.core]) {
      for (const p of core?.peers ?? []) keys.add(b4a.toString(p.remotePublicKey, 'hex'))
    }
    return keys
  }

  /** Peers replicating the feed, the panel excluded (it only ever holds the drive header). */
  peers (): number {
    const keys = this.peerKeys()
    if (this.notAPeer !== null) keys.delete(this.notAPeer)
    return keys.size
  }

  bytesByPeer (): Record<string, PeerBytes> {
    return Object.fromEntries([...this.bytes].map(([k, v]) => [k, { ...v }]))
  }

  /** The playlist, freshest known (bounded); records when a live playlist advanced. */
  async playlist (timeoutMs: number, now: number): Promise<ParsedPlaylist> {
    const reader = this.reader
    if (this.type === 'live') await reader.update({ wait: false, timeoutMs: Math.min(timeoutMs, 2_000) }).catch(() => false)
    const list = await reader.playlist({ timeoutMs })
    this.lastPlaylist = list
    if (list.text !== this.lastPlaylistText) {
      this.lastPlaylistText = list.text
      this.lastAdvanceAt = now
      const listed = list.segments.map((s) => segmentSequence(s.uri)).filter((n): n is number => n !== null)
      if (listed.length > 0) this.newestListed = Math.max(...listed)
    }
    return list
  }

  /**
   * Requests the blocks of these segment paths ahead of the player, in the order given: each
   * download starts once the one before it finished (or after READ_AHEAD_STEP_MS), so the
   * segment needed first gets the feed's bandwidth first. A bounded set is kept in flight.
   * Nothing while the start is quiet (start-quiet.ts).
   */
  readAhead (paths: string[]): void {
    if (this.startQuiet?.quiet === true) return
    this.fetchAhead(paths)
  }

  /** The player asked for this segment (the local server's segment route). */
  segmentRequested (path: string): void {
    this.startQuiet?.segmentRequested(path)
  }

  private fetchAhead (paths: string[]): void {
    const reader = this.readerRef
    if (reader === null || this.closed) return
    let before: Promise<unknown> = Promise.resolve()
    for (const path of paths) {
      if (this.downloads.has(path)) continue
      let cancelled = false
      const marker = { destroy () { cancelled = true } }
      this.downloads.set(path, marker)
      const previous = before
      const started = (async () => {
        await previous
        if (cancelled || this.closed || this.downloads.get(path) !== marker) return
        const d = await this.download(reader, path)
        if (this.downloads.get(path) !== marker) { d?.destroy(); return }
        if (d === null) { this.downloads.delete(path); return }
        this.downloads.set(path, d)
        const done = d.done().catch(() => {}).finally(() => { if (this.downloads.get(path) === d) this.downloads.delete(path) })
        await Promise.race([done, delay(READ_AHEAD_STEP_MS)])
      })().catch(() => {}) // best effort: a failed step never holds up the next one
      before = started
    }
    // Forget the oldest requests beyond a small window (the live edge moves on).
    const excess = this.downloads.size - 16
    if (excess > 0) for (const [p, d] of [...this.downloads].slice(0, excess)) { d.destroy(); this.downloads.delete(p) }
  }

  /**
   * At tune time, before any player asked: the segment a player starts a live stream at (about
   * three target durations behind the live edge: hls.js's liveSyncDurationCount and
   * ExoPlayer's default live offset), then, once the start is no longer quiet (a retune while
   * playing), the newer ones (docs/architecture.md "First frame").
   */
  readAheadStart (count: number): void {
    const list = this.lastPlaylist
    if (this.type !== 'live' || list === null || list.segments.length === 0 || count <= 0) return
    const start = liveStartIndex(list)
    const take = this.startQuiet?.quiet === true ? 1 : count
    this.fetchAhead(list.segments.slice(start, start + take).map((s) => '/' + s.uri))
  }

  /** Downloads one segment completely now (bounded); resolves false when it did not arrive. */
  async fetchNow (path: string, timeoutMs: number): Promise<boolean> {
    const reader = this.readerRef
    if (reader === null) return false
    const d = await this.download(reader, path)
    if (d === null) return false
    let timer: ReturnType<typeof setTimeout> | undefined
    try {
      return await Promise.race([
        d.done().then(() => true, () => false),
        new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs) })
      ])
    } finally {
      clearTimeout(timer)
      d.destroy()
    }
  }

  async close (): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.closeReader()
    await this.topic?.leave()
    this.topic = null
  }

  private async download (reader: FeedReader, path: string): Promise<{ done(): Promise<void>; destroy(): void } | null> {
    try {
      const entry = await reader.drive.entry(path, { timeout: 5_000 })
      const blob = entry?.value.blob
      const blobs = await reader.drive.getBlobs()
      if (blob === null || blob === undefined || blobs === null || blob.blockLength === 0) return null
      return blobs.core.download({ start: blob.blockOffset, end: blob.blockOffset + blob.blockLength })
    } catch {
      return null
    }
  }

  private count (core: Hypercore): void {
    const add = (peer: CountedPeer | undefined, field: 'downloaded' | 'uploaded', n: number): void => {
      if (peer?.remotePublicKey === undefined) return
      const k = b4a.toString(peer.remotePublicKey, 'hex')
      const e = this.bytes.get(k) ?? { downloaded: 0, uploaded: 0, remote: null }
      e[field] += n
      e.remote = remoteOf(peer) ?? e.remote
      this.bytes.set(k, e)
    }
    const onDownload = (_i: number, n: number, from: CountedPeer): void => add(from, 'downloaded', n)
    const onUpload = (_i: number, n: number, to: CountedPeer): void => add(to, 'uploaded', n)
    core.on('download', onDownload)
    core.on('upload', onUpload)
    this.detach.push(() => { core.off('download', onDownload); core.off('upload', onUpload) })
    this.refusals.set(core, null)
    this.applyUploadPolicy()
  }

  /**
   * 'client-only' uploads no block data at all, on any connection (refuseUploads); 'reseed'
   * serves. Follows the topics' announce flag; called again by setUploadPolicy.
   */
  applyUploadPolicy (): void {
    const serve = this.topics.announcing
    for (const [core, refusal] of this.refusals) {
      if (!serve && refusal === null) this.refusals.set(core, refuseUploads(core))
      else if (serve && refusal !== null) { refusal.close(); this.refusals.set(core, null) }
    }
  }

  private async closeReader (): Promise<void> {
    for (const d of this.downloads.values()) d.destroy()
    this.downloads.clear()
    for (const off of this.detach.splice(0)) off()
    for (const refusal of this.refusals.values()) refusal?.close()
    this.refusals.clear()
    const r = this.readerRef
    this.readerRef = null
    await r?.close().catch(() => {})
  }
}

/** The N of a flat-layout segment URI or path (`seg<N>.ts`, `/seg<N>.ts`), else null. */
export function segmentSequence (uri: string): number | null {
  try {
    const p = parseFeedPath(uri)
    return p.kind === 'segment' ? p.sequence : null
  } catch {
    return null
  }
}

import type Corestore from 'corestore'
import type Hypercore from 'hypercore'
import { COMPACT_AFTER_BYTES, paceRequests, reannounce, watchOrigins, type OriginWatch, type RequestPacer } from '@arus/feed'

/**
 * One hypercore mirrored by key, keylessly: its blocks are stored and served as they arrive
 * (ciphertext, verified against the signed Merkle tree like any replica), never decrypted.
 *
 * - `window` (a live channel's cores): downloads every new block as it is appended and clears
 *   each block `retentionMs` after it arrived, oldest first, so disk stays O(window). A
 *   restart starts the window again from what the origin still holds (a repeater's window is
 *   a cache: nothing of it was acknowledged to anyone).
 * - `all` (a VOD title's cores): downloads the whole core and keeps it until evicted.
 *
 * Clearing tells peers (hypercore broadcasts the drop) and then re-announces what is still
 * held (`reannounce`: hypercore 11.37.1 makes a peer forget the blocks above a dropped one).
 */
export type MirrorMode = 'window' | 'all'

/** How often a proven origin's acknowledgement of our length is checked (nudgeOrigins). */
const NUDGE_MS = 2000

/** A block request of the mirror unanswered this long is asked of another peer (request-pacing.ts). */
const ABANDON_AFTER_MS = 3000

export interface CoreMirrorInit {
  store: Corestore
  key: Uint8Array
  mode: MirrorMode
  /** Window mode: how long a block is kept after it arrived. */
  retentionMs: number
  /** Injected clock (tests). */
  now?: () => number
}

export interface CoreMirrorStats {
  /** Bytes downloaded by this mirror since it opened. */
  bytesIn: number
  /** Bytes served to peers since it opened. */
  bytesOut: number
  /** Blocks held now (window mode: exact; all mode: the contiguous prefix plus what arrived since). */
  blocksHeld: number
  /** Bytes held now (all mode: estimated for a partly mirrored core, from its length and byteLength). */
  bytesHeld: number
  /** The core's length as the origin last announced it. */
  length: number
  /** Blocks between the newest one held and the head as announced by any peer (0 when the head is here). */
  lag: number
  /** Peers replicating this core with the repeater, and of those the ones that proved they are its origin. */
  peers: number
  origins: number
  /** Syncs sent to an origin that had not acknowledged our length (nudgeOrigins). */
  originNudges: number
  /** Each origin peer's request state (diagnostics: why a mirror is not fetching). */
  originPeers: Array<{ inflight: number; limit: number; remoteLength: number; backedOff: boolean; asked: boolean; upgradeInflight: number | null; lengthAcked: number | null; remoteCanUpgrade: boolean | null; length: number; noData: { notAvailable: number; invalid: number } }>
  /** Block requests received, and "no data" answers sent (diagnostics: a requester pauses a peer after 32 of those). */
  requestsIn: number
  noDataOut: number
  /** Of requestsIn, those asking for a block. */
  blockRequestsIn: number
  /** Requests received and not answered yet, and of those the ones queued behind a connection that is not drained. */
  pendingIn: number
  queuedIn: number
  /** Peers whose connection is not drained (writes wait for the network). */
  undrained: number
}

interface Arrival { index: number; at: number; bytes: number }

/** What {@link askOnlySources} touches of hypercore 11.37.1's per-peer replicator state. */
interface WirePeer {
  onrequest?: (msg: { block: unknown }) => unknown
  remoteUploading?: boolean
  paused?: boolean
  arusConsumer?: boolean
  remoteRequests?: Map<number, unknown>
  receiverQueue?: { length: number }
  protomux?: { drained?: boolean }
  inflight?: number
  remoteLength?: number
  lengthAcked?: number
  remoteCanUpgrade?: boolean
  syncsProcessing?: number
  sendSync?: () => void
  stats?: { notAvailableBackoffs?: number; backoffs?: number }
  arusBackedOff?: boolean
  getMaxInflight?: () => number
}

/**
 * A peer that asks the repeater for a block is a consumer (a viewer), and the repeater stops
 * asking it for blocks: hypercore otherwise spreads a range's requests over every peer that has
 * a block, at random, and a viewer behind a 1 Mbit/s home uplink 200 ms away answers far slower
 * than the origin, so the repeater fell behind the head it exists to serve (docs/benchmarks.md
 * "Swarm with a repeater"). The origin never asks a mirror for anything, so it stays a source.
 * Done by hiding the peer's `remoteUploading` from the replicator (the flag a range request
 * checks); hypercore internals, pinned by the workspace override.
 *
 * And a peer hypercore would pause is only no longer asked, never no longer served: hypercore
 * pauses a peer after 32 "no data" answers from it (a viewer asked for a block it no longer
 * holds, a phone that uploads nothing), and a paused peer's requests are then dropped without
 * an answer. The lab's repeater, beside 24 viewers, received ~50 block requests a second and
 * answered none, while its viewers timed out (docs/benchmarks.md "Swarm with a repeater").
 *
 * And while a peer that proved it is the core's origin is connected (`origins`, origin-proof.ts
 * in @arus/feed: an origin that trusts this repeater sends one), only origins are asked: a
 * viewer that has not asked the mirror yet is no source either (24 viewers of the lab's run
 * mostly never did, because the mirror, asking them, lagged the head they wanted). A proven
 * origin is asked even after hypercore would have backed off from it.
 */
export function askOnlySources (peer: WirePeer, opts: { onBlockRequest?: () => void; origins?: OriginWatch } = {}): void {
  if (peer.arusConsumer !== undefined || typeof peer.onrequest !== 'function') return
  let consumer = false
  let uploading = peer.remoteUploading ?? true
  Object.defineProperty(peer, 'arusConsumer', { configurable: true, get: () => consumer })
  let backedOff = peer.paused === true
  Object.defineProperty(peer, 'arusBackedOff', { configurable: true, get: () => backedOff })
  Object.defineProperty(peer, 'remoteUploading', { configurable: true, enumerable: true, get: () => {
      const origin = opts.origins?.isOrigin(peer) === true
      // A proven origin is asked even after hypercore backed off from it: it is the head's one
      // source, and a mirror that stopped asking it starved for good (the lab: "no data"
      // answers for blocks its window had just dropped paused it).
      if (origin) return uploading
      return uploading && !consumer && !backedOff && (opts.origins === undefined || opts.origins.count() === 0)
    },
    set: (v: boolean) => { uploading = v } })
  Object.defineProperty(peer, 'paused', { configurable: true, enumerable: true, get: () => false, set: (v: boolean) => { backedOff = v } })
  const onrequest = peer.onrequest
  peer.onrequest = function (this: unknown, msg: { block: unknown }) {
    if (msg.block !== null && msg.block !== undefined) { consumer = true; opts.onBlockRequest?.() }
    return onrequest.call(this, msg)
  }
}

export class CoreMirror {
  readonly core: Hypercore
  private readonly now: () => number
  private range: { destroy(): void } | null = null
  private rangeStart = 0
  private readonly arrivals: Arrival[] = [] // window mode, in arrival order
  private heldBlocks = 0
  private heldBytes = 0
  private bytesIn = 0
  private bytesOut = 0
  private newest = -1
  private blockRequestsIn = 0
  private readonly nudger: ReturnType<typeof setInterval>
  private nudges = 0
  /** Peers that proved they are the core's origin (asked first; origin-proof.ts). */
  private readonly origins: OriginWatch
  private readonly sourcePolicy: { onBlockRequest: () => void; origins: OriginWatch }
  private clearedSinceCompact = 0
  private evicted = false
  private closed = false
  private working: Promise<void> = Promise.resolve()
  /**
   * Few requests in flight at a peer that answers slowly, many at a fast one (the origin): a
   * viewer that has not asked the mirror for anything yet is still a source to askOnlySources,
   * and with 24 viewers the mirror's range requests queued behind their home uplinks until it
   * fell minutes behind the head (docs/benchmarks.md "Swarm with a repeater"). A request
   * unanswered for ABANDON_AFTER_MS is cancelled there and asked again of another peer.
   */
  private readonly pacer: RequestPacer

  constructor (private readonly init: CoreMirrorInit) {
    this.core = init.store.get({ key: init.key })
    this.now = init.now ?? Date.now
    // An origin's proof moves every request to it: let hypercore reconsider what is in flight.
    this.origins = watchOrigins(this.core, () => { (this.core as unknown as { replicator?: { updateAll?(): void } }).replicator?.updateAll?.() })
    // A proven origin is the head's one source: never paced down, never abandoned.
    this.pacer = paceRequests(this.core, { abandonAfterMs: ABANDON_AFTER_MS, exempt: (peer) => this.origins.isOrigin(peer) })
    this.sourcePolicy = { onBlockRequest: () => { this.blockRequestsIn++ }, origins: this.origins }
    this.nudger = setInterval(() => { this.nudgeOrigins() }, NUDGE_MS)
    this.nudger.unref?.()
    this.core.on('download', (index: number, bytes: number) => this.ondownload(index, bytes))
    this.core.on('peer-add', (peer: unknown) => { askOnlySources(peer as WirePeer, this.sourcePolicy) })
    this.core.on('upload', (_index: number, bytes: number) => { this.bytesOut += bytes })
  }

  get mode (): MirrorMode { return this.init.mode }
  get isEvicted (): boolean { return this.evicted }

  /**
   * Opens the core; a window mirror drops what a previous run held. Then starts downloading —
   * except an all-mode mirror opened `paused` that holds nothing yet: it waits for
   * {@link admit} (the repeater admits a title once its size is known and fits the budget).
   */
  async ready (opts: { paused?: boolean } = {}): Promise<void> {
    await this.core.ready()
    for (const peer of this.core.peers) askOnlySources(peer as unknown as WirePeer, this.sourcePolicy)
    if (this.init.mode === 'window') {
      // What an earlier run held has no arrival time: drop it, and take the origin's current
      // window again (the range starts at 0; blocks the origin no longer has are never asked).
      await this.clearAll()
      this.rangeStart = 0
    } else {
      await this.countHeld()
      if (opts.paused === true && this.heldBlocks === 0) { this.evicted = true; return }
    }
    this.follow()
  }

  /** (Re)starts the download range from `rangeStart` to the live end. */
  private follow (): void {
    if (this.closed || this.evicted) return
    this.range?.destroy()
    // window: blocks from the first not yet cleared on; all: everything. `end: -1` follows appends.
    this.range = this.core.download({ start: this.init.mode === 'window' ? this.rangeStart : 0, end: -1 })
  }

  private ondownload (index: number, bytes: number): void {
    this.bytesIn += bytes
    this.heldBlocks++
    this.heldBytes += bytes
    if (index > this.newest) this.newest = index
    if (this.init.mode === 'window') this.arrivals.push({ index, at: this.now(), bytes })
  }

  /** All mode: counts what is already on disk (a title mirrored by an earlier run). */
  private async countHeld (): Promise<void> {
    const length = this.core.length
    if (length === 0) return
    let held = 0
    for (let i = 0; i < length; i++) if (await this.core.has(i)) { held++; this.newest = i }
    this.heldBlocks = held
    this.heldBytes = Math.round(this.core.byteLength * (held / length))
  }

  /** Window mode: clears what arrived more than retentionMs ago. Serialized with the other clears. */
  expire (): Promise<void> {
    return this.serial(async () => {
      if (this.init.mode !== 'window') return
      const cutoff = this.now() - this.init.retentionMs
      let n = 0
      while (n < this.arrivals.length && this.arrivals[n]!.at <= cutoff) n++
      await this.clearArrivals(n)
    })
  }

  /**
   * Frees at least `bytes` (window mode: the oldest blocks, but never those that arrived in
   * the last `keepMs`; all mode: everything, and the mirror stops downloading until
   * {@link admit}). Resolves the bytes freed.
   */
  shed (bytes: number, keepMs: number): Promise<number> {
    return this.serial(async () => {
      const before = this.heldBytes
      if (this.init.mode === 'all') {
        this.evicted = true
        this.range?.destroy()
        this.range = null
        await this.clearAll()
        return before - this.heldBytes
      }
      const keepFrom = this.now() - keepMs
      let n = 0
      let freed = 0
      while (n < this.arrivals.length && freed < bytes && this.arrivals[n]!.at <= keepFrom) freed += this.arrivals[n++]!.bytes
      await this.clearArrivals(n)
      return before - this.heldBytes
    })
  }

  /** All mode: mirrors the core again after an eviction. */
  admit (): void {
    if (!this.evicted) return
    this.evicted = false
    this.follow()
  }

  private async clearArrivals (n: number): Promise<void> {
    if (n === 0 || this.closed) return
    const gone = this.arrivals.splice(0, n).sort((a, b) => a.index - b.index)
    let lowest = Infinity
    // Clear contiguous runs with one call each.
    let i = 0
    while (i < gone.length) {
      let j = i
      while (j + 1 < gone.length && gone[j + 1]!.index === gone[j]!.index + 1) j++
      await this.core.clear(gone[i]!.index, gone[j]!.index + 1)
      lowest = Math.min(lowest, gone[i]!.index)
      i = j + 1
    }
    for (const a of gone) { this.heldBlocks--; this.heldBytes -= a.bytes; this.clearedSinceCompact += a.bytes }
    // Never download a cleared block again: the range restarts above the newest cleared one.
    const top = gone[gone.length - 1]!.index + 1
    if (top > this.rangeStart) { this.rangeStart = top; this.follow() }
    await reannounce(this.core, lowest)
    if (this.clearedSinceCompact >= COMPACT_AFTER_BYTES) await this.compact()
  }

  private async clearAll (): Promise<void> {
    const length = this.core.length
    this.arrivals.length = 0
    this.heldBlocks = 0
    this.heldBytes = 0
    this.newest = -1
    if (length === 0) return
    await this.core.clear(0, length)
    await this.compact()
  }

  private async compact (): Promise<void> {
    this.clearedSinceCompact = 0
    await this.core.compact()
  }

  private serial<T> (fn: () => Promise<T>): Promise<T> {
    const run = this.working.then(fn, fn)
    this.working = run.then(() => {}, () => {})
    return run
  }

  stats (): CoreMirrorStats {
    const length = this.core.length
    // The head as far as any peer announced it: the mirror's own length grows only once it got an upgrade.
    let head = length
    for (const p of this.core.peers as unknown as WirePeer[]) head = Math.max(head, p.remoteLength ?? 0)
    return {
      bytesIn: this.bytesIn,
      bytesOut: this.bytesOut,
      blocksHeld: this.heldBlocks,
      bytesHeld: Math.max(0, this.heldBytes),
      length,
      lag: this.evicted || head === 0 ? 0 : Math.max(0, head - 1 - this.newest),
      peers: this.core.peers.length,
      origins: this.origins.count(),
      originNudges: this.nudges,
      originPeers: this.core.peers.filter((p) => this.origins.isOrigin(p)).map((p) => originState(p as unknown as WirePeer, this.core)),
      ...wireCounts(this.core),
      blockRequestsIn: this.blockRequestsIn,
      ...receiving(this.core.peers as unknown as WirePeer[])
    }
  }

  /**
   * Tells a proven origin our length again when what it last acknowledged is not it. hypercore
   * asks a peer for a new length only once that peer acknowledged ours, and a replica whose
   * length grew past what the origin had announced (the lab: the origin's syncs, behind its
   * congested uplink, arrived after a longer length had) sends it no sync: the mirror then never
   * asked the origin for anything again (hypercore 11.37.1, `_updateCanUpgradeAndSync`). A
   * sync is a few bytes.
   */
  private nudgeOrigins (): void {
    if (this.closed) return
    for (const p of this.core.peers as unknown as WirePeer[]) {
      if (!this.origins.isOrigin(p) || p.lengthAcked === undefined || p.lengthAcked === this.core.length) continue
      if ((p.syncsProcessing ?? 0) !== 0 || typeof p.sendSync !== 'function') continue
      this.nudges++
      try { p.sendSync() } catch { /* the peer is gone */ }
    }
  }

  /** Reclaims every block (a record dropped or re-targeted), then closes. */
  async purge (): Promise<void> {
    await this.serial(async () => {
      this.range?.destroy()
      this.range = null
      if (!this.closed && this.core.opened) await this.clearAll()
    })
    await this.close()
  }

  async close (): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.range?.destroy()
    this.range = null
    clearInterval(this.nudger)
    this.pacer.close()
    this.origins.close()
    await this.working
    await this.core.close().catch(() => {})
  }
}

/** hypercore 11's replicator wire counters (internals, pinned by the workspace override; 0 if absent). */
function wireCounts (core: Hypercore): { requestsIn: number; noDataOut: number } {
  const stats = (core as unknown as { replicator?: { stats?: { wireRequest?: { rx?: number }; wireNoData?: { tx?: number } } } }).replicator?.stats
  return { requestsIn: stats?.wireRequest?.rx ?? 0, noDataOut: stats?.wireNoData?.tx ?? 0 }
}

/** Requests waiting at the mirror, per peer state (hypercore 11 internals; 0 if absent). */
function receiving (peers: WirePeer[]): { pendingIn: number; queuedIn: number; undrained: number } {
  let pendingIn = 0
  let queuedIn = 0
  let undrained = 0
  for (const p of peers) {
    pendingIn += p.remoteRequests?.size ?? 0
    queuedIn += p.receiverQueue?.length ?? 0
    if (p.protomux?.drained === false) undrained++
  }
  return { pendingIn, queuedIn, undrained }
}

function originState (p: WirePeer, core: Hypercore): CoreMirrorStats['originPeers'][number] {
  const upgrade = (core as unknown as { replicator?: { _upgrade?: { inflight: unknown[] } | null } }).replicator?._upgrade
  return {
    inflight: p.inflight ?? 0,
    limit: p.getMaxInflight?.() ?? 0,
    remoteLength: p.remoteLength ?? 0,
    backedOff: p.arusBackedOff === true,
    asked: p.remoteUploading === true,
    upgradeInflight: upgrade === undefined || upgrade === null ? null : upgrade.inflight.length,
    lengthAcked: p.lengthAcked ?? null,
    remoteCanUpgrade: p.remoteCanUpgrade ?? null,
    length: core.length,
    noData: { notAvailable: p.stats?.notAvailableBackoffs ?? 0, invalid: p.stats?.backoffs ?? 0 }
  }
}

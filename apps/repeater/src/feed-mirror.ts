import type Corestore from 'corestore'
import type Hyperswarm from 'hyperswarm'
import { CoreMirror, type CoreMirrorStats, type MirrorMode } from './core-mirror.js'
import { LonelyRefresh } from './lookup.js'

/** A catalog record the repeater mirrors: one feed generation's two cores. */
export interface MirrorTarget {
  id: string
  type: 'live' | 'vod'
  feedKey: string
  blobsKey: string
}

export interface FeedMirrorStats {
  id: string
  type: 'live' | 'vod'
  feedKey: string
  /** 'mirroring', or 'evicted' (a VOD title over the disk budget: joined as a client only). */
  state: 'mirroring' | 'evicted'
  bytesIn: number
  bytesOut: number
  /** Viewers replicating the feed with the repeater (its metadata core). */
  peers: number
  blocksHeld: number
  bytesHeld: number
  /** Blob blocks between the newest held and the origin's head. */
  lag: number
  /** The blob core's peers, block requests received and "no data" answers sent (diagnostics). */
  blobPeers: number
  requestsIn: number
  noDataOut: number
  /** The media core's block requests received, requests not answered yet, those queued behind an undrained connection, and such connections (diagnostics). */
  /** The media core's peers that proved they are its origin (origin-proof.ts). */
  origins: number
  originPeers: CoreMirrorStats['originPeers']
  originNudges: number
  blockRequestsIn: number
  pendingIn: number
  queuedIn: number
  undrained: number
  /** A VOD title held whole (every block of both cores); false for live channels. */
  complete: boolean
}

/**
 * One feed generation mirrored keylessly: the drive's metadata core (`feedKey`) and blob
 * core (`blobsKey`) as raw blocks, and the feed's topic (hypercore's discovery key of the
 * metadata core, the one viewers join) announced, so viewers find the repeater beside the
 * origin. Live feeds keep a window; VOD titles are mirrored whole.
 */
export class FeedMirror {
  readonly meta: CoreMirror
  readonly blobs: CoreMirror
  private announced: boolean | null = null
  private topic: Buffer | null = null
  private refresh: LonelyRefresh | null = null
  private lastOut = 0
  private lastIn = 0
  private lastTick = 0
  /** Bytes served in recent ticks (exponentially weighted): how hot the mirror is. */
  heat = 0
  /** Bytes a second arriving (exponentially weighted): what a live window grows to. */
  private rate = 0
  private ticks = 0

  /** A live mirror's arrival rate is known after a few ticks; until then its window cannot be projected. */
  get settling (): boolean { return this.target.type === 'live' && this.ticks < 3 }

  constructor (readonly target: MirrorTarget, private readonly deps: { store: Corestore; swarm: Hyperswarm }, private readonly retentionMs: number) {
    const mode: MirrorMode = target.type === 'live' ? 'window' : 'all'
    this.meta = new CoreMirror({ store: deps.store, key: Buffer.from(target.feedKey, 'hex'), mode, retentionMs: retentionMs * 2 })
    this.blobs = new CoreMirror({ store: deps.store, key: Buffer.from(target.blobsKey, 'hex'), mode, retentionMs })
  }

  /** Evicted (or, for a title, not yet admitted) since: the budget waits a while before admitting it again. */
  evictedAt = 0

  /**
   * Opens both cores and joins the topic. A VOD title that holds nothing yet starts paused:
   * joined as a client only (its size arrives with the origin's sync) until the repeater
   * admits it within the disk budget.
   */
  async start (): Promise<void> {
    const paused = this.target.type === 'vod'
    await Promise.all([this.meta.ready({ paused }), this.blobs.ready({ paused })])
    // A title partly held from an earlier run carries on.
    if (this.meta.stats().blocksHeld > 0 || this.blobs.stats().blocksHeld > 0) { this.meta.admit(); this.blobs.admit() }
    this.topic = this.meta.core.discoveryKey
    this.announce(!this.evicted)
  }

  /** Joins the feed's topic: announced (server) while mirroring, looked up only while evicted. */
  private announce (server: boolean): void {
    if (this.topic === null || this.announced === server) return
    this.announced = server
    const session = this.deps.swarm.join(this.topic, { server, client: true })
    // Nobody on the topic (the origin down when the mirror started): look again until someone is.
    this.refresh = new LonelyRefresh(session, () => this.meta.core.peers.length === 0)
  }

  /** One budget tick: expires a live window, updates the heat. */
  async tick (): Promise<void> {
    this.refresh?.tick()
    await Promise.all([this.meta.expire(), this.blobs.expire()])
    const out = this.meta.stats().bytesOut + this.blobs.stats().bytesOut
    this.heat = this.heat * 0.8 + (out - this.lastOut)
    this.lastOut = out
    const now = Date.now()
    const bytesIn = this.meta.stats().bytesIn + this.blobs.stats().bytesIn
    this.ticks++
    if (this.lastTick > 0 && now > this.lastTick) this.rate = this.rate * 0.7 + 0.3 * ((bytesIn - this.lastIn) * 1000) / (now - this.lastTick)
    this.lastIn = bytesIn
    this.lastTick = now
  }

  /** What the mirror will hold: a live window at its full retention, a title what it holds. */
  get projectedBytes (): number {
    return this.target.type === 'live' ? Math.max(this.bytesHeld, Math.round((this.rate * this.retentionMs) / 1000)) : this.bytesHeld
  }

  get bytesHeld (): number { return this.meta.stats().bytesHeld + this.blobs.stats().bytesHeld }
  get evicted (): boolean { return this.blobs.isEvicted }
  /** Bytes a VOD title holds once complete (its cores' byte lengths). */
  get fullBytes (): number { return this.meta.core.byteLength + this.blobs.core.byteLength }

  async shed (bytes: number, keepMs: number, now: number): Promise<number> {
    const freed = await this.blobs.shed(bytes, keepMs)
    if (this.target.type === 'vod') {
      await this.meta.shed(Number.MAX_SAFE_INTEGER, keepMs)
      this.evictedAt = now
      this.announce(false)
    }
    return freed
  }

  admit (): void {
    this.meta.admit()
    this.blobs.admit()
    this.announce(true)
  }

  stats (): FeedMirrorStats {
    const m = this.meta.stats()
    const b = this.blobs.stats()
    return {
      id: this.target.id,
      type: this.target.type,
      feedKey: this.target.feedKey,
      state: this.evicted ? 'evicted' : 'mirroring',
      bytesIn: m.bytesIn + b.bytesIn,
      bytesOut: m.bytesOut + b.bytesOut,
      peers: m.peers,
      blocksHeld: m.blocksHeld + b.blocksHeld,
      bytesHeld: m.bytesHeld + b.bytesHeld,
      lag: b.lag,
      blobPeers: b.peers,
      requestsIn: m.requestsIn + b.requestsIn,
      noDataOut: m.noDataOut + b.noDataOut,
      origins: b.origins,
      originPeers: b.originPeers,
      originNudges: m.originNudges + b.originNudges,
      blockRequestsIn: b.blockRequestsIn,
      pendingIn: b.pendingIn,
      queuedIn: b.queuedIn,
      undrained: b.undrained,
      complete: this.target.type === 'vod' && !this.evicted && m.length > 0 && b.length > 0 && m.blocksHeld === m.length && b.blocksHeld === b.length
    }
  }

  private async leave (): Promise<void> {
    if (this.topic !== null && this.announced !== null) await this.deps.swarm.leave(this.topic).catch(() => {})
    this.announced = null
    this.refresh = null
  }

  /** Leaves the topic and reclaims both cores (dropped or re-targeted record). */
  async purge (): Promise<void> {
    await this.leave()
    await Promise.all([this.meta.purge(), this.blobs.purge()])
  }

  async close (): Promise<void> {
    await this.leave()
    await Promise.all([this.meta.close(), this.blobs.close()])
  }
}

export type { CoreMirrorStats }

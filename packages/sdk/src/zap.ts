import type { ZapPrefetchEvent, ZapSuspendReason } from './index.js'
import type { ZapConfig } from './options.js'

/** A warmed neighbor channel: its newest segment is kept replicated. */
export interface WarmHandle<S = unknown> {
  readonly id: string
  /** Fetches the neighbor's newest segment; resolves its download speed as a multiple of realtime (null: nothing new). */
  tick(): Promise<number | null>
  /** Hands the open feed over (a zap to this neighbor); the handle is spent. */
  adopt(): S
  close(): Promise<void>
}

export interface ZapDeps {
  now(): number
  emit(event: ZapPrefetchEvent): void
  /** The zap ring: live P2P entitled stream ids in curated order. */
  ring(): string[]
  /** Id of the active live P2P stream, or null (vod, redirect, nothing playing: no zap). */
  activeId(): string | null
  /** Refreshes the active playlist; resolves the time it last advanced (null when unknown). */
  activeAdvance(): Promise<number | null>
  warm(id: string): Promise<WarmHandle | null>
}

/**
 * Zap prefetch (spec 3 "Zap prefetch"): while a live P2P stream plays, the newest segment of the
 * adjacent channels of the zap ring is kept replicated. Suspended (standing downloads dropped,
 * tick kept) on a metered network, when the active playlist stalls for stallMs, or when a
 * neighbor downloads slower than minHeadroom × realtime; 'stall' and 'thin' lift after a clean
 * advance of resumeMs, 'metered' when the network is cheap again.
 */
export class ZapPrefetch {
  private config: ZapConfig | null = null
  private expensive = false
  private suspended: ZapSuspendReason | null = null
  private cleanSince: number | null = null
  private direction: -1 | 0 | 1 = 0
  private readonly warmed = new Map<string, WarmHandle>()
  private timer: ReturnType<typeof setTimeout> | null = null
  private ticking = false
  private closed = false

  constructor (private readonly deps: ZapDeps) {}

  get enabled (): boolean { return this.config !== null }
  get suspendedReason (): ZapSuspendReason | null { return this.suspended }
  warmIds (): string[] { return [...this.warmed.keys()] }

  /** Runtime switch; echoed as { enabled } (not for the initial option). */
  set (config: ZapConfig | null, echo = true): void {
    this.config = config
    if (echo) this.deps.emit({ enabled: config !== null })
    if (config === null) {
      this.clearTimer()
      this.suspended = null
      void this.drop()
      return
    }
    if (this.expensive && this.suspended !== 'metered') this.suspend('metered')
    this.schedule(0)
  }

  /** Metered networks suspend prefetch until cheap again. */
  setExpensive (expensive: boolean): void {
    this.expensive = expensive
    if (this.config === null) return
    if (expensive && this.suspended !== 'metered') this.suspend('metered')
    else if (!expensive && this.suspended === 'metered') this.resume('metered')
  }

  /** A zap from `prevId` to `nextId`: one step along the ring sets the direction, a jump resets it. */
  noteZap (prevId: string | null, nextId: string): void {
    const ring = this.deps.ring()
    const a = prevId === null ? -1 : ring.indexOf(prevId)
    const b = ring.indexOf(nextId)
    if (a < 0 || b < 0 || ring.length < 2) this.direction = 0
    else if (b === (a + 1) % ring.length) this.direction = 1
    else if (b === (a - 1 + ring.length) % ring.length) this.direction = -1
    else this.direction = 0
    this.cleanSince = null
    if (this.config !== null) this.schedule(0)
  }

  /**
   * A zap to a warmed neighbor: its open, already replicating feed is handed over instead of
   * being closed (that is what makes the zap fast). Null when `id` is not warm.
   */
  take (id: string): unknown {
    const h = this.warmed.get(id)
    if (h === undefined) return null
    this.warmed.delete(id)
    return h.adopt()
  }

  /** The active stream changed kind or stopped: drop neighbors now; the tick picks up again. */
  async reset (): Promise<void> { await this.drop() }

  async close (): Promise<void> {
    this.closed = true
    this.clearTimer()
    await this.drop()
  }

  /** Neighbor ids of the active stream per `neighbors` and the surf direction. */
  neighbors (): string[] {
    const active = this.deps.activeId()
    const ring = this.deps.ring()
    const i = active === null ? -1 : ring.indexOf(active)
    if (this.config === null || i < 0 || ring.length < 2) return []
    const sides = this.config.directional && this.direction !== 0 ? [this.direction] : [1, -1]
    const out: string[] = []
    for (let k = 1; k <= this.config.neighbors; k++) {
      for (const s of sides) {
        const id = ring[(((i + s * k) % ring.length) + ring.length) % ring.length]
        if (id !== undefined && id !== active && !out.includes(id)) out.push(id)
      }
    }
    return out
  }

  private schedule (ms: number): void {
    if (this.closed || this.config === null) return
    this.clearTimer()
    this.timer = setTimeout(() => { this.timer = null; void this.tick() }, ms)
  }

  private clearTimer (): void {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
  }

  private async tick (): Promise<void> {
    const config = this.config
    if (config === null || this.closed || this.ticking) return
    this.ticking = true
    try {
      const now = this.deps.now()
      const advancedAt = this.deps.activeId() === null ? null : await this.deps.activeAdvance().catch(() => null)
      const advancing = advancedAt !== null && now - advancedAt < config.stallMs
      if (advancing) this.cleanSince ??= now
      else this.cleanSince = null
      if (advancedAt !== null && !advancing && this.suspended === null) this.suspend('stall')
      if ((this.suspended === 'stall' || this.suspended === 'thin') && this.cleanSince !== null && now - this.cleanSince >= config.resumeMs) {
        this.resume(this.suspended)
      }
      if (this.suspended === null && !this.expensive) await this.warmNeighbors(config)
    } finally {
      this.ticking = false
      this.schedule(config.intervalMs)
    }
  }

  private async warmNeighbors (config: ZapConfig): Promise<void> {
    const want = new Set(this.neighbors())
    for (const [id, h] of this.warmed) {
      if (!want.has(id)) { this.warmed.delete(id); await h.close().catch(() => {}) }
    }
    for (const id of want) {
      if (this.warmed.has(id)) continue
      const h = await this.deps.warm(id).catch(() => null)
      if (h === null) continue
      if (this.suspended !== null || this.config === null || this.closed) { await h.close().catch(() => {}); return }
      this.warmed.set(id, h)
    }
    for (const h of [...this.warmed.values()]) {
      const headroom = await h.tick().catch(() => null)
      if (headroom !== null && headroom < config.minHeadroom && this.suspended === null) { this.suspend('thin'); return }
    }
  }

  private suspend (reason: ZapSuspendReason): void {
    this.suspended = reason
    this.cleanSince = null
    void this.drop()
    this.deps.emit({ state: 'suspended', reason })
  }

  private resume (reason: ZapSuspendReason): void {
    this.suspended = null
    this.deps.emit({ state: 'resumed', reason })
    this.schedule(0)
  }

  private async drop (): Promise<void> {
    const all = [...this.warmed.values()]
    this.warmed.clear()
    await Promise.all(all.map((h) => h.close().catch(() => {})))
  }
}

import { MESH_REFRESH_MAX_MS, MESH_REFRESH_MIN_MS, TUNE_ATTEMPTS } from './constants.js'
import { SdkError } from './errors.js'
import type { TuneState } from './index.js'

export interface TuneConfig { timeoutMs: number; relookupMinMs: number; relookupMaxMs: number; rescanMs: number }

/** What the ladder drives; the engine binds these to one feed session. */
export interface TunerDeps {
  config: TuneConfig
  status(state: TuneState): void
  /** The friendly tune-timeout error (emitted as 'error'). */
  fail(err: SdkError): void
  /** Resolves true once the feed is playable (a peer serves it and its playlist lists segments). */
  playable(timeoutMs: number, signal: AbortSignal): Promise<boolean>
  /** Peers currently serving the feed (for the rescan watch). */
  peers(): number
  /** 'feed:retune': evict the cached feed open and open it again. */
  retune(): Promise<void>
  /** 'feed:reconnect': tear down the feed's peer connections and dial fresh. */
  reconnect(): Promise<void>
  /** Forced DHT re-lookup. */
  relookup(): Promise<void>
  /** DHT re-lookup of the mesh refresh while ready (see MESH_REFRESH_MIN_MS); none when absent. */
  refresh?(): Promise<void>
  /** Called once the feed is ready (each time the ladder succeeds). */
  onReady?(): void
}

/** Poll period of the zero-peer watch while ready. */
const MONITOR_MS = 500

/**
 * The tune ladder and self-heal of spec 3 "Tune ladder (live P2P streams)":
 * idle → 'feed:open' → ('feed:ready' | timeout → 'feed:retune' (evict, reopen) → timeout →
 * 'feed:reconnect' (fresh connections) → timeout → friendly error). While tuning, DHT re-lookups
 * are forced on a backoff between relookupMinMs and relookupMaxMs. Once ready, zero peers for
 * rescanMs emits 'feed:rescan', forces a lookup and re-arms the ladder; and the mesh refresh
 * looks the topic up again on a backoff (MESH_REFRESH_MIN_MS doubling to MESH_REFRESH_MAX_MS) to
 * meet viewers that announced later. Vod titles and redirect channels never get a tuner.
 */
export class Tuner {
  private readonly abort = new AbortController()
  private timers = new Set<ReturnType<typeof setTimeout>>()
  private stopped = false
  private stopMesh: (() => void) | null = null
  state: TuneState | 'idle' | 'failed' = 'idle'

  constructor (private readonly deps: TunerDeps) {}

  /** Starts at 'feed:open' (a fresh tune) or 'feed:retune' (a follow whose first try timed out). */
  start (first: 'feed:open' | 'feed:retune' = 'feed:open'): void {
    void this.ladder(first, first === 'feed:retune' ? 1 : 0)
  }

  /** Takes over a feed that is already playable (a follow swap): no status, just the peer watch. */
  adopt (): void {
    this.state = 'feed:ready'
    this.whileReady()
  }

  stop (): void {
    if (this.stopped) return
    this.stopped = true
    this.abort.abort()
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
  }

  private async ladder (first: TuneState, from: number): Promise<void> {
    const stopRelookups = this.paceRelookups()
    try {
      for (let attempt = from; attempt < TUNE_ATTEMPTS; attempt++) {
        if (this.stopped) return
        if (attempt === from) this.setState(first)
        else if (attempt === 1) this.setState('feed:retune')
        else this.setState('feed:reconnect')
        if (attempt === 1) await this.deps.retune().catch(() => {})
        if (attempt === 2) await this.deps.reconnect().catch(() => {})
        if (this.stopped) return
        const ok = await this.deps.playable(this.deps.config.timeoutMs, this.abort.signal).catch(() => false)
        if (this.stopped) return
        if (ok) {
          this.setState('feed:ready')
          this.deps.onReady?.()
          this.whileReady()
          return
        }
      }
      this.state = 'failed'
      this.deps.fail(SdkError.tuneTimeout())
    } finally {
      stopRelookups()
    }
  }

  private setState (state: TuneState): void {
    this.state = state
    this.deps.status(state)
  }

  /** Re-lookups while tuning: first after relookupMinMs, then doubling up to relookupMaxMs. */
  private paceRelookups (): () => void {
    let delay = this.deps.config.relookupMinMs
    let live = true
    let timer: ReturnType<typeof setTimeout> | null = null
    const next = (): void => {
      if (!live || this.stopped) return
      timer = this.after(delay, () => {
        void this.deps.relookup().catch(() => {})
        delay = Math.min(delay * 2, this.deps.config.relookupMaxMs)
        next()
      })
    }
    next()
    return () => {
      live = false
      if (timer !== null) { clearTimeout(timer); this.timers.delete(timer) }
    }
  }

  private whileReady (): void {
    this.watchPeers()
    this.refreshMesh()
  }

  /** While ready: re-lookups after MESH_REFRESH_MIN_MS, doubling up to MESH_REFRESH_MAX_MS; ends when the feed leaves 'feed:ready'. */
  private refreshMesh (): void {
    const refresh = this.deps.refresh
    if (refresh === undefined) return
    this.stopMesh?.()
    let delay = MESH_REFRESH_MIN_MS
    let timer: ReturnType<typeof setTimeout> | null = null
    const next = (): void => {
      timer = this.after(delay, () => {
        timer = null
        if (this.stopped || this.state !== 'feed:ready') return
        void refresh().catch(() => {})
        delay = Math.min(delay * 2, MESH_REFRESH_MAX_MS)
        next()
      })
    }
    next()
    this.stopMesh = () => {
      if (timer !== null) { clearTimeout(timer); this.timers.delete(timer) }
      timer = null
    }
  }

  /** While ready: zero peers for rescanMs → 'feed:rescan', a fresh lookup, and the ladder again. */
  private watchPeers (): void {
    const { rescanMs } = this.deps.config
    if (rescanMs === 0) return
    let zeroFor = 0
    const tick = (): void => {
      if (this.stopped || this.state !== 'feed:ready') return
      zeroFor = this.deps.peers() === 0 ? zeroFor + MONITOR_MS : 0
      if (zeroFor < rescanMs) { this.after(MONITOR_MS, tick); return }
      void this.deps.relookup().catch(() => {})
      void this.ladder('feed:rescan', 0)
    }
    this.after(MONITOR_MS, tick)
  }

  private after (ms: number, fn: () => void): ReturnType<typeof setTimeout> {
    const t = setTimeout(() => { this.timers.delete(t); fn() }, ms)
    this.timers.add(t)
    return t
  }
}

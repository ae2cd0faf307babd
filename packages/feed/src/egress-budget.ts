import { FeedError } from './errors.js'

/**
 * An origin's upload budget: block answers leave at most `bytesPerSecond` on average, trusted
 * relays first (upload shaping's `budget`; broadcaster `ORIGIN_UPLINK_MBIT`).
 *
 * Why: an uplink offered more than it carries drops packets, and it drops them from every
 * connection alike. The network lab measured it (docs/benchmarks.md "Swarm with a repeater"):
 * an origin on a 1.5 Mbit/s uplink answering a repeater and 24 viewers at once lost 37 % of its
 * packets at the link, the repeater's connection backed off until it received nothing at all
 * for minutes, and with it every viewer it was there to serve. Answering no faster than the
 * link carries keeps the queue short and nothing is lost; answering the relay first keeps the
 * one copy that feeds everyone moving while viewers wait for what is left.
 *
 * A token bucket refilled at `bytesPerSecond`, allowed to go into debt by one answer (an answer
 * is admitted while the bucket is not negative, then its size is taken), so the average holds
 * and a burst is at most one block beyond `burstMs` worth. Waiting answers are taken by
 * priority (0 first), in arrival order within one; a cancelled one is skipped.
 */
export interface EgressBudgetInit {
  /** Average bytes per second of block answers (all channels sharing the budget). */
  bytesPerSecond: number
  /** Tokens saved up while idle, in ms of the rate. Default 100. */
  burstMs?: number
  /** Injected clock (tests). */
  now?: () => number
}

export interface EgressBudgetStats {
  /** Answers admitted, and those that had to wait. */
  admitted: number
  waited: number
  /** Bytes admitted. */
  bytes: number
  /** Answers waiting now. */
  queued: number
  /** Waiting answers dropped because their request was cancelled meanwhile. */
  skipped: number
}

export interface EgressBudget {
  readonly bytesPerSecond: number
  /**
   * Runs `send` when the budget allows `bytes` more. `cancelled()` is checked before a waiting
   * answer runs (a requester that got the block elsewhere). Priority 0 (trusted relays) before 1.
   */
  admit (priority: 0 | 1, bytes: number, send: () => void, cancelled?: () => boolean): void
  stats (): EgressBudgetStats
  /** Runs everything still waiting, and admits at once from then on. */
  close (): void
}

interface Waiting { bytes: number; send: () => void; cancelled: (() => boolean) | undefined }

export function createEgressBudget (init: EgressBudgetInit): EgressBudget {
  const rate = init.bytesPerSecond
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 1000) throw FeedError.invalidArgument('bytesPerSecond', 'must be a number >= 1000')
  const burstMs = init.burstMs ?? 100
  if (!Number.isInteger(burstMs) || burstMs < 0 || burstMs > 10_000) throw FeedError.invalidArgument('burstMs', 'must be an integer 0-10000')
  const now = init.now ?? Date.now
  const cap = rate * burstMs / 1000
  let tokens = cap
  let last = now()
  let timer: ReturnType<typeof setTimeout> | null = null
  let closed = false
  const queues: [Waiting[], Waiting[]] = [[], []]
  const stats: EgressBudgetStats = { admitted: 0, waited: 0, bytes: 0, queued: 0, skipped: 0 }

  const refill = (): void => {
    const t = now()
    tokens = Math.min(cap, tokens + (t - last) * rate / 1000)
    last = t
  }
  const run = (w: Waiting): void => {
    tokens -= w.bytes
    stats.admitted++
    stats.bytes += w.bytes
    try { w.send() } catch { /* the peer went away: nothing to answer */ }
  }
  const next = (): Waiting | undefined => {
    for (const q of queues) {
      while (q.length > 0) {
        const w = q.shift()!
        if (w.cancelled?.() === true) { stats.skipped++; continue }
        return w
      }
    }
    return undefined
  }
  const drain = (): void => {
    timer = null
    refill()
    while (tokens >= 0 || closed) {
      const w = next()
      if (w === undefined) break
      run(w)
    }
    stats.queued = queues[0].length + queues[1].length
    if (stats.queued > 0 && timer === null && !closed) {
      timer = setTimeout(drain, Math.max(1, Math.ceil(-tokens * 1000 / rate)))
      timer.unref?.()
    }
  }

  return {
    bytesPerSecond: rate,
    admit (priority, bytes, send, cancelled) {
      const w: Waiting = { bytes: Math.max(0, bytes), send, cancelled }
      if (closed) { run(w); return }
      refill()
      if (tokens >= 0 && queues[0].length === 0 && (priority === 0 || queues[1].length === 0)) { run(w); return }
      stats.waited++
      queues[priority].push(w)
      stats.queued++
      if (timer === null) drain()
    },
    stats: () => ({ ...stats }),
    close () {
      if (closed) return
      closed = true
      if (timer !== null) clearTimeout(timer)
      timer = null
      drain()
    }
  }
}

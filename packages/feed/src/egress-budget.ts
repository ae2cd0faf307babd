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
  /**
   * The share of the budget kept for priority 0 (trusted relays) while one is active (a
   * priority-0 answer admitted or waiting within the last {@link RELAY_ACTIVE_MS}): priority-1
   * answers then leave at most `(1 - reserve) × bytesPerSecond`. Ordering alone does not protect
   * a relay: answers already handed to the network share the link per connection, and the lab's
   * origin, answering viewers with what the relay did not take at that instant, fed the relay
   * less than the stream until it fell behind for good. 0-0.95; default 0 (ordering only).
   */
  reserve?: number
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

/** A relay counts as active this long after its last answer was admitted (see `reserve`). */
export const RELAY_ACTIVE_MS = 3000

export function createEgressBudget (init: EgressBudgetInit): EgressBudget {
  const rate = init.bytesPerSecond
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 1000) throw FeedError.invalidArgument('bytesPerSecond', 'must be a number >= 1000')
  const burstMs = init.burstMs ?? 100
  if (!Number.isInteger(burstMs) || burstMs < 0 || burstMs > 10_000) throw FeedError.invalidArgument('burstMs', 'must be an integer 0-10000')
  const reserve = init.reserve ?? 0
  if (typeof reserve !== 'number' || !(reserve >= 0 && reserve <= 0.95)) throw FeedError.invalidArgument('reserve', 'must be a number 0-0.95')
  const now = init.now ?? Date.now
  const cap = rate * burstMs / 1000
  let tokens = cap
  /** Priority 1's own bucket while a relay is active, refilled at (1 - reserve) × rate. */
  const lowRate = rate * (1 - reserve)
  // A second of its share may be saved up: it goes only when the whole budget allows it too,
  // so a share capped at burstMs would lose what the relay's bursts kept it from.
  const lowCap = lowRate * Math.max(burstMs, 1000) / 1000
  let lowTokens = lowCap
  let highAt = -Infinity
  let last = now()
  let timer: ReturnType<typeof setTimeout> | null = null
  let closed = false
  const queues: [Waiting[], Waiting[]] = [[], []]
  const stats: EgressBudgetStats = { admitted: 0, waited: 0, bytes: 0, queued: 0, skipped: 0 }

  const refill = (): void => {
    const t = now()
    tokens = Math.min(cap, tokens + (t - last) * rate / 1000)
    lowTokens = Math.min(lowCap, lowTokens + (t - last) * lowRate / 1000)
    last = t
  }
  /** A relay is being served: priority 1 is held to its share (`reserve`). */
  const relayActive = (): boolean => reserve > 0 && (queues[0].length > 0 || now() - highAt <= RELAY_ACTIVE_MS)
  /** Priority 1 may go now: the budget allows it, and its share does while a relay is active. */
  const lowMayGo = (): boolean => tokens >= 0 && (!relayActive() || lowTokens >= 0)
  const run = (w: Waiting, priority: 0 | 1): void => {
    tokens -= w.bytes
    if (priority === 0) highAt = now()
    else if (relayActive()) lowTokens -= w.bytes
    stats.admitted++
    stats.bytes += w.bytes
    try { w.send() } catch { /* the peer went away: nothing to answer */ }
  }
  /** The first waiting answer of `priority` not cancelled meanwhile (cancelled ones dropped). */
  const take = (priority: 0 | 1): Waiting | undefined => {
    const q = queues[priority]
    while (q.length > 0) {
      const w = q.shift()!
      if (w.cancelled?.() === true) { stats.skipped++; continue }
      return w
    }
    return undefined
  }
  const drain = (): void => {
    timer = null
    refill()
    for (;;) {
      if (!closed && tokens < 0) break
      const high = take(0)
      if (high !== undefined) { run(high, 0); continue }
      if (queues[1].length === 0 || (!closed && !lowMayGo())) break
      const low = take(1)
      if (low === undefined) break
      run(low, 1)
    }
    stats.queued = queues[0].length + queues[1].length
    if (stats.queued > 0 && timer === null && !closed) {
      const waitHigh = tokens < 0 ? -tokens * 1000 / rate : 0
      const waitLow = queues[0].length === 0 && relayActive() && lowTokens < 0 ? -lowTokens * 1000 / lowRate : 0
      timer = setTimeout(drain, Math.max(1, Math.ceil(Math.max(waitHigh, waitLow))))
      timer.unref?.()
    }
  }

  return {
    bytesPerSecond: rate,
    admit (priority, bytes, send, cancelled) {
      const w: Waiting = { bytes: Math.max(0, bytes), send, cancelled }
      if (closed) { run(w, priority); return }
      refill()
      if (priority === 0 ? tokens >= 0 && queues[0].length === 0 : queues[0].length === 0 && queues[1].length === 0 && lowMayGo()) { run(w, priority); return }
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

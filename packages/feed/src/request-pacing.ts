import type Hypercore from 'hypercore'
import { FeedError } from './errors.js'

/**
 * Requester-side pacing: how many block requests a replica keeps in flight at each peer follows
 * how fast that peer answers, so a slow peer holds few of them and a fast one many. Used by the
 * repeater's mirror (apps/repeater core-mirror.ts); the SDK does not pace (tried in the lab, no
 * gain measured).
 *
 * Why: hypercore gives each peer at least 16 requests in flight, picks among the peers that
 * have a block at random, and never times a request out. Most peers of a live feed are viewers
 * behind 1-2 Mbit/s home uplinks asked by a dozen others at once: a request there waits
 * seconds in a queue. The network lab measured a repeater beside 24 viewers whose range
 * requests sat at such viewers until it received nothing for minutes (docs/benchmarks.md
 * "Swarm with a repeater"). A slow peer still helps with the few it can answer in time, and
 * `abandonAfterMs` asks another peer for a block stuck at one.
 *
 * Per peer it keeps an estimate of the time a block request takes, answered or still waiting
 * (an exponential average of answered ones and of cancelled ones that had waited longer than
 * it, raised to the age of the oldest one outstanding),
 * and allows `floor(reference / estimate)` in flight, at least `minInflight` and at most what
 * hypercore would allow, where the reference is `targetMs` or, if larger, the fastest peer's
 * estimate; only peers that answered a block in the last 10 s count. The fastest peer itself
 * always keeps hypercore's limit, however slow it is (the lab's origin behind a 1.5 × the stream uplink is slow and still the best
 * source a repeater has; paced to one request it fed the mirror less than the stream). A peer
 * with no estimate yet gets hypercore's own limit.
 *
 * Wraps hypercore 11's per-peer `getMaxInflight`, `getMaxHotswapInflight`, `wireRequest.send`,
 * `wireCancel.send`, `ondata` and `onnodata` (internals, pinned to hypercore 11.37.1 by the
 * workspace override, as upload shaping does; a test fails if they change).
 */
export interface RequestPacingInit {
  /** The time a peer's requests in flight should take to answer, ms. Default 1500. */
  targetMs?: number
  /** Requests in flight a slow peer keeps. Default 1. */
  minInflight?: number
  /**
   * A block request unanswered this long is abandoned: cancelled at that peer and asked again
   * of another (hypercore itself never times a request out, so a block stuck behind a slow
   * peer's queue stalls a range for as long as that queue takes). Default none.
   */
  abandonAfterMs?: number
  /**
   * Peers never paced nor abandoned (hypercore's own limit, requests never cancelled): the
   * repeater's proven origins (origin-proof.ts), the one source of a live head. Default none.
   */
  exempt?: (peer: unknown) => boolean
}

export interface RequestPacer {
  /** Each peer's current estimate and limit (diagnostics and tests), by remote key (hex) or index. */
  peers (): Array<{ peer: string; estimateMs: number | null; limit: number; outstanding: number }>
  /** Block requests abandoned (abandonAfterMs) so far. */
  abandoned (): number
  close (): void
}

interface WireMsg { id: number; block: { index: number } | null }
interface Replicator { _clearRequest?(peer: unknown, req: unknown): void; queueUpdateAll?(): void }
interface WirePeer {
  _cancelRequest?(req: unknown): void
  replicator?: Replicator
  getMaxInflight(): number
  getMaxHotswapInflight(): number
  wireRequest?: { send(msg: WireMsg): unknown }
  wireCancel?: { send(msg: { request: number }): unknown }
  ondata(data: { request: number }): unknown
  onnodata(msg: { request: number }): unknown
  stream?: { remotePublicKey?: Uint8Array }
}

interface PeerState {
  estimate: number | null
  /** When the peer last answered a block request (0: never). */
  answeredAt: number
  sent: Map<number, number>
  reqs: Map<number, WireMsg>
  observe: (ms: number) => void
  estimateNow: () => number | null
  limit: () => number
  restore: () => void
}

const EWMA_WEIGHT = 0.3
/** A peer that answered a block this recently counts as answering (see fastestAnswering). */
const ANSWERING_MS = 10_000
/** An outstanding request older than this is forgotten (see estimate). */
const FORGET_MS = 30_000

export function paceRequests (core: Hypercore, init: RequestPacingInit = {}): RequestPacer {
  const targetMs = init.targetMs ?? 1500
  const minInflight = init.minInflight ?? 1
  if (!Number.isInteger(targetMs) || targetMs < 50 || targetMs > 60_000) throw FeedError.invalidArgument('targetMs', 'must be an integer 50-60000')
  if (!Number.isInteger(minInflight) || minInflight < 1 || minInflight > 64) throw FeedError.invalidArgument('minInflight', 'must be an integer 1-64')
  const abandonAfterMs = init.abandonAfterMs
  if (abandonAfterMs !== undefined && (!Number.isInteger(abandonAfterMs) || abandonAfterMs < 100 || abandonAfterMs > 600_000)) throw FeedError.invalidArgument('abandonAfterMs', 'must be an integer 100-600000')
  let abandoned = 0

  let closed = false
  const states = new Map<WirePeer, PeerState>()
  /** The peer with the lowest estimate among those that answered a block in the last ANSWERING_MS. */
  const fastestAnswering = (now: number): PeerState | null => {
    let best: PeerState | null = null
    let bestEst = Infinity
    for (const st of states.values()) {
      // hypercore asks every peer's limit on each scheduling pass: peers not answering (most of
      // a repeater's, its viewers) are passed over before their estimate is computed.
      if (now - st.answeredAt > ANSWERING_MS) continue
      const e = st.estimateNow()
      if (e !== null && e < bestEst) { best = st; bestEst = e }
    }
    return best
  }

  const wrap = (peer: WirePeer): void => {
    if (closed || states.has(peer) || typeof peer.getMaxInflight !== 'function' || typeof peer.ondata !== 'function' ||
      typeof peer.onnodata !== 'function' || typeof peer.wireRequest?.send !== 'function') return
    const request = peer.wireRequest
    const cancel = peer.wireCancel
    const own = { getMaxInflight: peer.getMaxInflight, getMaxHotswapInflight: peer.getMaxHotswapInflight, send: request.send, cancel: cancel?.send, ondata: peer.ondata, onnodata: peer.onnodata }
    const sent = new Map<number, number>()
    /** The request objects themselves (hypercore sends its request as the message), to abandon one. */
    const reqs = new Map<number, WireMsg>()
    const state: PeerState = { estimate: null, answeredAt: 0, sent, reqs, observe: () => {}, estimateNow: () => null, limit: () => 0, restore: () => {} }
    const observe = (ms: number): void => {
      state.estimate = state.estimate === null ? ms : state.estimate + EWMA_WEIGHT * (ms - state.estimate)
    }
    state.observe = observe
    const estimate = (): number | null => {
      let oldest = 0
      const now = Date.now()
      for (const [id, at] of sent) {
        // Lost track of (an id hypercore dropped without a cancel): forget it rather than pin the peer.
        if (now - at > FORGET_MS) { sent.delete(id); reqs.delete(id) }
        else oldest = Math.max(oldest, now - at)
      }
      if (state.estimate === null && sent.size === 0) return null
      return Math.max(state.estimate ?? 0, oldest)
    }
    state.estimateNow = estimate
    state.limit = (): number => {
      const natural = own.getMaxInflight.call(peer)
      if (init.exempt?.(peer) === true) return natural
      const est = estimate()
      if (est === null || est <= 0) return natural
      // The fastest peer still answering keeps hypercore's own limit however slow it is (a
      // capped origin is slow and still the best source there is); the others may take as
      // long as it does. Only peers still answering count: a viewer the repeater stopped
      // asking keeps the estimate of its last answer, and must not pace the origin down.
      const best = fastestAnswering(Date.now())
      if (best === state) return natural
      const reference = Math.max(targetMs, best?.estimateNow() ?? 0)
      return Math.max(minInflight, Math.min(natural, Math.floor(reference / est)))
    }
    peer.getMaxInflight = function () { return state.limit() }
    peer.getMaxHotswapInflight = function () { return Math.min(own.getMaxHotswapInflight.call(peer), Math.max(state.limit(), minInflight)) }
    request.send = function (msg: WireMsg) {
      if (msg.block !== null && msg.id !== 0) { sent.set(msg.id, Date.now()); reqs.set(msg.id, msg) }
      return own.send.call(this, msg)
    }
    if (cancel !== undefined && own.cancel !== undefined) {
      const cancelSend = own.cancel
      cancel.send = function (msg: { request: number }) {
        // Cancelled (got elsewhere) after waiting this long: the answer would have taken at least as long.
        const at = sent.get(msg.request)
        reqs.delete(msg.request)
        if (at !== undefined) {
          sent.delete(msg.request)
          const waited = Date.now() - at
          if (state.estimate === null || waited > state.estimate) observe(waited)
        }
        return cancelSend.call(this, msg)
      }
    }
    peer.ondata = function (data: { request: number }) {
      const at = sent.get(data.request)
      reqs.delete(data.request)
      if (at !== undefined) {
        sent.delete(data.request)
        state.answeredAt = Date.now()
        observe(state.answeredAt - at)
      }
      return own.ondata.call(this, data)
    }
    peer.onnodata = function (msg: { request: number }) {
      sent.delete(msg.request)
      reqs.delete(msg.request)
      return own.onnodata.call(this, msg)
    }
    state.restore = () => {
      peer.getMaxInflight = own.getMaxInflight
      peer.getMaxHotswapInflight = own.getMaxHotswapInflight
      request.send = own.send
      if (cancel !== undefined && own.cancel !== undefined) cancel.send = own.cancel
      peer.ondata = own.ondata
      peer.onnodata = own.onnodata
    }
    states.set(peer, state)
  }
  /** Cancels at its peer every block request older than abandonAfterMs, so the block is asked of another. */
  const sweep = (): void => {
    const now = Date.now()
    const protect = fastestAnswering(now)
    for (const [peer, st] of states) {
      // Never at the fastest peer still answering: asking again would only ask a slower one, or
      // the same one at the back of its queue (a capped origin whose answers take longer than
      // abandonAfterMs would then never complete one).
      if (st === protect || init.exempt?.(peer) === true) continue
      const cancel = peer._cancelRequest
      const replicator = peer.replicator
      if (typeof cancel !== 'function' || typeof replicator?._clearRequest !== 'function') continue
      let any = false
      for (const [id, at] of st.sent) {
        if (now - at < abandonAfterMs!) continue
        const req = st.reqs.get(id)
        st.sent.delete(id)
        st.reqs.delete(id)
        if (req === undefined) continue
        st.observe(now - at)
        abandoned++
        any = true
        try {
          cancel.call(peer, req) // tells the peer (wireCancel), frees the slot, keeps the id from reuse until a roundtrip
          replicator._clearRequest(peer, req) // the block is no longer in flight: it may be asked again
        } catch { /* the peer is gone */ }
      }
      if (any) replicator.queueUpdateAll?.()
    }
  }
  const sweeper = abandonAfterMs === undefined ? null : setInterval(sweep, Math.min(250, Math.max(50, Math.floor(abandonAfterMs / 4))))
  sweeper?.unref?.()
  const onAdd = (peer: WirePeer): void => { wrap(peer) }
  const onRemove = (peer: WirePeer): void => { states.delete(peer) }
  core.on('peer-add', onAdd)
  core.on('peer-remove', onRemove)
  for (const peer of core.peers as unknown as WirePeer[]) wrap(peer)

  return {
    peers () {
      return [...states].map(([peer, s], i) => {
        const key = peer.stream?.remotePublicKey
        return { peer: key === undefined ? String(i) : Buffer.from(key).toString('hex'), estimateMs: s.estimate, limit: s.limit(), outstanding: s.sent.size }
      })
    },
    abandoned: () => abandoned,
    close () {
      if (closed) return
      closed = true
      if (sweeper !== null) clearInterval(sweeper)
      core.off('peer-add', onAdd)
      core.off('peer-remove', onRemove)
      for (const s of states.values()) s.restore()
      states.clear()
    }
  }
}

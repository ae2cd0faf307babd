import type Hypercore from 'hypercore'
import type { EgressBudget } from './egress-budget.js'
import { FeedError } from './errors.js'
import { originProofs } from './origin-proof.js'

/**
 * Origin upload shaping (issue 7 "Make the origin cheap"; docs/architecture.md "Origin
 * egress"). A live origin has every block first, so without help every viewer fetches
 * every block from it. Here the origin answers each block at once to the first
 * `peersPerBlock` distinct peers only; a later request for the same block is held for
 * `holdMs`. Meanwhile the viewers that got it announce it, the waiting viewers' hypercore
 * hot-swaps the request to them, and cancels the held one — so most blocks leave the
 * origin `peersPerBlock` times. A request is held only while a peer that got the block is
 * still connected (a block whose receivers all left is answered at once, and a held request
 * is answered the moment its block's last receiver leaves); one still held when `holdMs`
 * runs out is answered normally, so no viewer ever starves. A receiver whose sync says it
 * does not upload (a 'client-only' viewer, `refuseUploads`) never counts as a relay.
 *
 * Trusted relays (`relays`: repeaters the operator runs) go first: while one is connected,
 * the origin's copy of a block goes to it and the viewers wait for it to pass the block on
 * (issue 42 "Repeaters"; docs/deploy.md "Adding repeaters").
 *
 * This wraps hypercore 11's per-peer `onrequest` / `oncancel` handlers (internals, pinned
 * to hypercore 11.37.1 by the workspace override); a test fails if they change.
 */
export interface UploadShapingInit {
  /** Distinct peers served each block immediately. Default 2. */
  peersPerBlock?: number
  /** How long a later request for the same block is held before it is served anyway. Default 1500 ms. */
  holdMs?: number
  /** Block indexes remembered (oldest forgotten first). Default 8192. */
  maxTrackedBlocks?: number
  /**
   * Only a request for a block appended less than this long ago is held. A request for an
   * older block comes from a viewer catching up (a join's first segment, a viewer that fell
   * behind, a relay that did not come): holding it only stalls a viewer already late, so it is
   * answered at once. Default 4000 ms (two segment periods of 2 s); 0 holds regardless of age.
   */
  freshMs?: number
  /**
   * Noise public keys (hex, lowercase; uppercase is lowercased) of trusted relays: repeaters
   * the operator runs. A relay is a peer whose connection's remote public key is one of
   * these. Its block requests are always answered at once, and it counts as a receiver.
   * While at least one relay is connected on this core (and its sync does not say it refuses
   * uploads), a block request from any other peer is held for `holdMs`, even before the
   * block reached `peersPerBlock` receivers, when the block is fresh (appended less than
   * `freshMs` ago: the relay fetches it at once, asked for or not), already went to a
   * relay that is still connected, or lies at or above the first block the relay asked for
   * (whatever its age: the relay mirrors every block from there, and a viewer catching up gets
   * it from the relay as fast as from here; an origin on a capped uplink must not send it
   * twice). A relay counts while it keeps asking (RELAY_IDLE_MS). Such a request is answered when `holdMs` runs out, or at
   * once when the last relay it waited for leaves and no other receiver can relay it; it is
   * cancelled as usual when the requester gets the block elsewhere. Without a connected
   * relay, shaping is as if none were given. Each must be 64 hex characters. Default none.
   */
  relays?: Iterable<string>
  /**
   * The origin's upload budget (createEgressBudget; one per process, shared by every channel):
   * block answers leave no faster than the uplink carries, a trusted relay's first. Default none
   * (answers leave as fast as they are asked for).
   */
  budget?: EgressBudget
}

export interface UploadShapingStats {
  /** Requests answered at once. */
  served: number
  /** Requests held because the block already went to `peersPerBlock` peers, or a trusted relay is here to pass it on. */
  held: number
  /** Held requests the requester cancelled (it got the block elsewhere): upload saved. */
  cancelled: number
  /** Held requests answered after `holdMs`, or when the last receiver of their block left. */
  released: number
  /** Total milliseconds the cancelled requests had been held: ÷ cancelled = the mean relay time. */
  cancelWaitMs: number
  /** Requests that would have been held but asked for a block older than freshMs: answered at once. */
  late: number
  /** Requests answered at once because they came from a trusted relay (also counted in `served`). */
  relayServed: number
  /** Viewers' requests for a block an active trusted relay already has, answered "no data" once so they ask the relay. */
  bounced: number
  /**
   * With trusted relays configured: block requests from other peers answered at once, by why —
   * the peer had been sent the block before (`repeat`), no relay was active (`noRelay`), or the
   * block had not reached a relay yet and was not fresh enough to wait for one (`notRelayable`).
   * Diagnostics for the network lab (docs/benchmarks.md "Swarm with a repeater").
   */
  viewerServed: { repeat: number; noRelay: number; notRelayable: number }
  /**
   * Each connected trusted relay's transport (its UDX stream: round trip ms, congestion window
   * and bytes in flight, retransmission timeouts and retransmits, BBR's bandwidth estimate);
   * diagnostics for the network lab, fields absent where the transport has none.
   */
  relayTransport?: Array<Record<string, number>>
}

export interface UploadShaper {
  stats(): UploadShapingStats
  /** Stops shaping: held requests are answered now, new ones go straight through. */
  close(): void
}

interface WirePeer {
  onrequest(msg: WireRequest): unknown
  oncancel(msg: { request: number }): unknown
  stream?: { remotePublicKey?: Uint8Array }
  /** What the peer's last sync said: false for a viewer that serves no block ('client-only'). */
  remoteUploading?: boolean
  wireNoData?: { send(msg: { request: number; reason: number }): unknown }
}
interface WireRequest { id: number; block: { index: number } | null; hash: unknown; seek: unknown; upgrade: unknown }

export function shapeUploads (core: Hypercore, init: UploadShapingInit = {}): UploadShaper {
  const peersPerBlock = init.peersPerBlock ?? 2
  const holdMs = init.holdMs ?? 1500
  const maxTracked = init.maxTrackedBlocks ?? 8192
  const freshMs = init.freshMs ?? 4000
  if (!Number.isInteger(freshMs) || freshMs < 0 || freshMs > 600_000) throw FeedError.invalidArgument('freshMs', 'must be an integer 0-600000')
  if (!Number.isInteger(peersPerBlock) || peersPerBlock < 1) throw FeedError.invalidArgument('peersPerBlock', 'must be an integer >= 1')
  if (!Number.isInteger(holdMs) || holdMs < 0 || holdMs > 60_000) throw FeedError.invalidArgument('holdMs', 'must be an integer 0-60000')
  const trusted = trustedRelays(init.relays)
  const budget = init.budget
  /** Trusted relays learn that this peer is the origin (origin-proof.ts), so they ask it first. */
  const proofs = trusted.size === 0 ? null : originProofs(core)
  const proven = new WeakSet<WirePeer>()
  /** What one block answer costs the budget: the core's mean block size. */
  const blockBytes = (): number => core.length > 0 ? core.byteLength / core.length : 65_536

  const stats: UploadShapingStats = { served: 0, held: 0, cancelled: 0, released: 0, cancelWaitMs: 0, late: 0, relayServed: 0, bounced: 0, viewerServed: { repeat: 0, noRelay: 0, notRelayable: 0 } }
  /** When each block index was appended here (while shaping), bounded like servedTo. */
  const appendedAt = new Map<number, number>()
  let knownLength = core.length
  const onAppend = (): void => {
    const now = Date.now()
    for (let i = knownLength; i < core.length; i++) {
      if (appendedAt.size >= maxTracked) appendedAt.delete(appendedAt.keys().next().value as number)
      appendedAt.set(i, now)
    }
    knownLength = core.length
  }
  /** A block appended longer than freshMs ago (or before shaping began). */
  const stale = (index: number): boolean => {
    if (freshMs === 0) return false
    const at = appendedAt.get(index)
    return at === undefined || Date.now() - at > freshMs
  }
  const servedTo = new Map<number, Set<unknown>>()
  /** Peers connected now (by identity), with how many wire sessions each has. */
  const connected = new Map<unknown, number>()
  /** The wire sessions of each connected identity (to read whether it uploads). */
  const sessionsOf = new Map<unknown, Set<WirePeer>>()
  /** Every held request, so a departing receiver can release the ones it was the hope of. */
  const holding = new Set<HeldEntry>()
  const restores: Array<() => void> = []
  const drops = new Map<WirePeer, () => void>()
  const identities = new Map<WirePeer, unknown>()
  let closed = false

  /** A connected peer whose every session said it does not upload ('client-only'): it cannot relay. */
  const refusesUploads = (who: unknown): boolean => {
    const sessions = sessionsOf.get(who)
    if (sessions === undefined || sessions.size === 0) return false
    for (const peer of sessions) if (peer.remoteUploading !== false) return false
    return true
  }

  /**
   * True when `index` already went to `peersPerBlock` peers and one of them (not `who`) is
   * still here to relay it. A receiver that says it does not upload counts for neither:
   * holding a request for its relay would only stall the requester for holdMs.
   */
  const relayable = (index: number, who: unknown): boolean => {
    const set = servedTo.get(index)
    if (!set) return false
    let relays = 0
    let here = false
    for (const other of set) {
      if (refusesUploads(other)) continue
      relays++
      if (other !== who && connected.has(other)) here = true
    }
    return relays >= peersPerBlock && here
  }

  /** When each trusted relay last asked for a block: one that stopped asking is gone or stuck. */
  const relayAsked = new Map<string, number>()
  /**
   * A trusted relay is active while connected, uploading, and asking: a live relay asks for
   * every new block at once, so one silent for RELAY_IDLE_MS has died without closing (a kill -9
   * leaves the connection open until it times out) and holding requests for it would stall
   * every viewer for holdMs per block.
   */
  const relayActive = (relay: unknown): boolean =>
    connected.has(relay) && !refusesUploads(relay) && Date.now() - (relayAsked.get(relay as string) ?? -Infinity) <= RELAY_IDLE_MS

  /** A trusted relay other than `who` is active. */
  const relayHere = (who: unknown): boolean => {
    for (const relay of trusted) if (relay !== who && relayActive(relay)) return true
    return false
  }

  /** The lowest block each trusted relay asked for: a mirror downloads every block from there on. */
  const relayFrom = new Map<string, number>()
  /**
   * `index` is one an active trusted relay (not `who`) will have: it fetches every block from
   * the first it asked for, so even an older block a viewer asks for (a join, a catch-up) is on
   * its way to the relay, and an origin whose uplink is the bottleneck must not send it twice.
   */
  const relayWillHave = (index: number, who: unknown): boolean => {
    for (const relay of trusted) if (relay !== who && relayActive(relay) && index >= (relayFrom.get(relay) ?? Infinity)) return true
    return false
  }

  /** `index` already went to a trusted relay (not `who`) that is still active. */
  const atRelay = (index: number, who: unknown): boolean => {
    const set = servedTo.get(index)
    if (!set) return false
    for (const other of set) if (other !== who && trusted.has(other as string) && relayActive(other)) return true
    return false
  }

  /** Whether a held request still has someone to wait for (a fresh block waits for any relay). */
  const stillHeld = (h: HeldEntry): boolean =>
    relayable(h.index, h.who) || atRelay(h.index, h.who) || (h.fresh && relayHere(h.who)) || relayWillHave(h.index, h.who)

  const remember = (index: number, who: unknown): void => {
    let set = servedTo.get(index)
    if (!set) {
      if (servedTo.size >= maxTracked) servedTo.delete(servedTo.keys().next().value as number)
      set = new Set()
      servedTo.set(index, set)
    }
    set.add(who)
  }

  const wrap = (peer: WirePeer): void => {
    if (closed || typeof peer.onrequest !== 'function' || typeof peer.oncancel !== 'function') return
    // The remote key identifies the peer across its sessions; the object itself otherwise.
    const who = peer.stream?.remotePublicKey ? Buffer.from(peer.stream.remotePublicKey).toString('hex') : peer
    identities.set(peer, who)
    if (proofs !== null && typeof who === 'string' && trusted.has(who)) proofs.send(peer)
    connected.set(who, (connected.get(who) ?? 0) + 1)
    let sessions = sessionsOf.get(who)
    if (sessions === undefined) { sessions = new Set(); sessionsOf.set(who, sessions) }
    sessions.add(peer)
    const onrequest = peer.onrequest
    const oncancel = peer.oncancel
    const held = new Map<number, { timer: NodeJS.Timeout; since: number; release: () => void; entry: HeldEntry }>()
    /** Answers waiting for the budget, by request id (a cancel drops one). */
    const budgeted = new Map<number, WireRequest>()
    /** Answers `msg` now, or when the budget allows (priority 0: a trusted relay). */
    const answer = (self: unknown, msg: WireRequest, priority: 0 | 1): unknown => {
      if (budget === undefined) return onrequest.call(self, msg)
      budgeted.set(msg.id, msg)
      budget.admit(priority, blockBytes(), () => {
        if (budgeted.get(msg.id) !== msg) return
        budgeted.delete(msg.id)
        Promise.resolve(onrequest.call(self, msg)).catch(() => {})
      }, () => budgeted.get(msg.id) !== msg)
      return undefined
    }

    peer.onrequest = function (msg: WireRequest) {
      const plainBlock = msg.block !== null && msg.hash === null && msg.seek === null && msg.upgrade === null
      if (closed) return onrequest.call(this, msg)
      // A block asked together with a proof or a length (a join's first request, a mirror's
      // upgrade) is never held, but its answer carries the block: it goes through the budget
      // too. Left outside, such answers overran the lab origin's 1.5 Mbit/s uplink, its queue
      // dropped packets, and the connection to the repeater stalled for tens of seconds.
      if (!plainBlock) return msg.block === null ? onrequest.call(this, msg) : answer(this, msg, typeof who === 'string' && trusted.has(who) ? 0 : 1)
      const index = msg.block!.index
      if (typeof who === 'string' && trusted.has(who)) {
        // A trusted relay: it takes the origin's copy and passes it on.
        if (proofs !== null && !proven.has(peer)) { proven.add(peer); proofs.send(peer) }
        relayAsked.set(who, Date.now())
        if (index < (relayFrom.get(who) ?? Infinity)) relayFrom.set(who, index)
        remember(index, who)
        stats.relayServed++
        stats.served++
        return answer(this, msg, 0)
      }
      const had = servedTo.get(index)?.has(who) === true
      const fresh = !stale(index)
      // The block already reached an active trusted relay: sent away once to ask it there.
      if (!had && atRelay(index, who) && bounce(msg.id, index)) return undefined
      // A trusted relay is here: the origin's copy goes to it, and this request waits for it.
      if (!had && ((fresh && relayHere(who)) || atRelay(index, who) || relayWillHave(index, who))) return hold(msg, index, fresh)
      if (!fresh && !had && relayable(index, who)) {
        // Would be held, but the requester is catching up: answer now.
        remember(index, who)
        stats.late++
        stats.served++
        return answer(this, msg, 1)
      }
      if (had || !relayable(index, who)) {
        if (trusted.size > 0) {
          if (had) stats.viewerServed.repeat++
          else if (!relayHere(who)) stats.viewerServed.noRelay++
          else stats.viewerServed.notRelayable++
        }
        remember(index, who)
        stats.served++
        return answer(this, msg, 1)
      }
      return hold(msg, index, fresh)
    }
    /** Blocks this peer was sent away for once (bounded like servedTo). */
    const bounced = new Set<number>()
    /**
     * Answers "no data" without a reason, at most once per block and peer: the requester's
     * hypercore asks again at once, of a peer that has the block (its relay, most likely), and
     * counts no back-off (hypercore pauses a peer only after "not available" or "invalid"
     * answers). Held instead, the request waited up to RELAY_HOLD_MAX_MS for a hotswap that a
     * viewer with no measure of the relay yet does not make: the lab's viewers joined ~27 s late.
     */
    const bounce = (id: number, index: number): boolean => {
      if (bounced.has(index) || typeof peer.wireNoData?.send !== 'function') return false
      if (bounced.size >= maxTracked) bounced.delete(bounced.values().next().value as number)
      bounced.add(index)
      stats.bounced++
      try { peer.wireNoData.send({ request: id, reason: 0 }) } catch { /* the peer is gone */ }
      return true
    }
    const hold = (msg: WireRequest, index: number, fresh: boolean): void => {
      stats.held++
      const release = (): void => {
        const h = held.get(msg.id)
        if (h === undefined) return
        clearTimeout(h.timer)
        held.delete(msg.id)
        holding.delete(h.entry)
        remember(index, who)
        stats.released++
        try {
          Promise.resolve(answer(peer, msg, 1)).catch(() => {})
        } catch {
          // the peer went away while the request was held: nothing to answer
        }
      }
      const previous = held.get(msg.id) // a reused request id replaces the old request
      if (previous) { clearTimeout(previous.timer); holding.delete(previous.entry) }
      const entry: HeldEntry = { index, who, fresh, release }
      holding.add(entry)
      const since = Date.now()
      // A request waiting for a trusted relay that is still active and will have the block keeps
      // waiting past holdMs (up to RELAY_HOLD_MAX_MS): when the origin's uplink is what is short,
      // answering it here takes the relay's bandwidth and puts every viewer further behind.
      const expire = (): void => {
        const h = held.get(msg.id)
        if (h === undefined) return
        if (atRelay(index, who) && !bounced.has(index) && typeof peer.wireNoData?.send === 'function') {
          // The relay has it now: send the requester there instead of waiting on.
          held.delete(msg.id)
          holding.delete(h.entry)
          bounce(msg.id, index)
          return
        }
        if (Date.now() - since < RELAY_HOLD_MAX_MS && (atRelay(index, who) || relayWillHave(index, who))) {
          h.timer = setTimeout(expire, holdMs)
          return
        }
        release()
      }
      held.set(msg.id, { timer: setTimeout(expire, holdMs), since, release, entry })
    }
    peer.oncancel = function (msg: { request: number }) {
      budgeted.delete(msg.request)
      const h = held.get(msg.request)
      if (h) {
        clearTimeout(h.timer)
        held.delete(msg.request)
        holding.delete(h.entry)
        stats.cancelled++
        stats.cancelWaitMs += Date.now() - h.since
      }
      return oncancel.call(this, msg)
    }
    drops.set(peer, () => {
      for (const h of held.values()) { clearTimeout(h.timer); holding.delete(h.entry) }
      held.clear()
      budgeted.clear()
    })
    restores.push(() => {
      peer.onrequest = onrequest
      peer.oncancel = oncancel
      for (const h of [...held.values()]) h.release()
    })
  }

  const relayTransport = (): Array<Record<string, number>> => {
    const out: Array<Record<string, number>> = []
    for (const [peer, who] of identities) {
      if (typeof who !== 'string' || !trusted.has(who)) continue
      const raw = (peer.stream as { rawStream?: Record<string, unknown> } | undefined)?.rawStream
      if (raw === undefined) continue
      const t: Record<string, number> = {}
      for (const k of ['rtt', 'cwnd', 'inflight', 'rtoCount', 'retransmits', 'fastRecoveries', 'bbrBandwidth', 'bytesTransmitted']) {
        const v = raw[k]
        if (typeof v === 'number') t[k] = v
      }
      out.push(t)
    }
    return out
  }

  const onPeerAdd = (peer: WirePeer) => wrap(peer)
  // A peer that leaves takes its held requests with it, and releases the requests that
  // were waiting for a block only it (of the peers still here) had received.
  const onPeerRemove = (peer: WirePeer) => {
    drops.get(peer)?.()
    drops.delete(peer)
    const who = identities.get(peer)
    if (!identities.delete(peer)) return
    const sessions = (connected.get(who) ?? 1) - 1
    sessionsOf.get(who)?.delete(peer)
    if (sessions > 0) connected.set(who, sessions)
    else { connected.delete(who); sessionsOf.delete(who) }
    for (const h of [...holding]) if (!stillHeld(h)) h.release()
  }
  core.on('peer-add', onPeerAdd)
  core.on('peer-remove', onPeerRemove)
  core.on('append', onAppend)
  for (const peer of core.peers as unknown as WirePeer[]) wrap(peer)

  return {
    stats: () => ({ ...stats, viewerServed: { ...stats.viewerServed }, relayTransport: relayTransport() }),
    close () {
      if (closed) return
      closed = true
      core.off('peer-add', onPeerAdd)
      core.off('peer-remove', onPeerRemove)
      core.off('append', onAppend)
      proofs?.close()
      for (const restore of restores.splice(0)) restore()
      appendedAt.clear()
      servedTo.clear()
      connected.clear()
      sessionsOf.clear()
      holding.clear()
      identities.clear()
    }
  }
}

/** A held request, as the release-on-leave check sees it. */
interface HeldEntry { index: number; who: unknown; fresh: boolean; release: () => void }

const NOISE_KEY_HEX = /^[0-9a-f]{64}$/i

/** A trusted relay that asked for no block this long is not waited for (see relayActive). */
export const RELAY_IDLE_MS = 3000
/** The longest a request waits for an active trusted relay that will have its block. */
export const RELAY_HOLD_MAX_MS = 10_000

/** `relays` checked and lowercased (peer identities are lowercase hex). */
function trustedRelays (relays: Iterable<string> | undefined): Set<string> {
  const set = new Set<string>()
  if (relays === undefined) return set
  if (typeof relays === 'string' || typeof (relays as Iterable<string>)[Symbol.iterator] !== 'function') {
    throw FeedError.invalidArgument('relays', 'must be an iterable of 64-character hex keys')
  }
  for (const key of relays) {
    if (typeof key !== 'string' || !NOISE_KEY_HEX.test(key)) throw FeedError.invalidArgument('relays', 'each must be 64 hex characters (a Noise public key)')
    set.add(key.toLowerCase())
  }
  return set
}

import type Hypercore from 'hypercore'
import { FeedError } from './errors.js'

/**
 * Origin upload shaping (issue 7 "Make the origin cheap"; docs/architecture.md "Origin
 * egress"). A live origin has every block first, so without help every viewer fetches
 * every block from it. Here the origin answers each block at once to the first
 * `peersPerBlock` distinct peers only; a later request for the same block is held for
 * `holdMs`. Meanwhile the viewers that got it announce it, the waiting viewers' hypercore
 * hot-swaps the request to them, and cancels the held one — so most blocks leave the
 * origin `peersPerBlock` times. A request still held when `holdMs` runs out is answered
 * normally, so no viewer ever starves.
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
}

export interface UploadShapingStats {
  /** Requests answered at once. */
  served: number
  /** Requests held because the block already went to `peersPerBlock` peers. */
  held: number
  /** Held requests the requester cancelled (it got the block elsewhere): upload saved. */
  cancelled: number
  /** Held requests answered after `holdMs`. */
  released: number
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
}
interface WireRequest { id: number; block: { index: number } | null; hash: unknown; seek: unknown; upgrade: unknown }

export function shapeUploads (core: Hypercore, init: UploadShapingInit = {}): UploadShaper {
  const peersPerBlock = init.peersPerBlock ?? 2
  const holdMs = init.holdMs ?? 1500
  const maxTracked = init.maxTrackedBlocks ?? 8192
  if (!Number.isInteger(peersPerBlock) || peersPerBlock < 1) throw FeedError.invalidArgument('peersPerBlock', 'must be an integer >= 1')
  if (!Number.isInteger(holdMs) || holdMs < 0 || holdMs > 60_000) throw FeedError.invalidArgument('holdMs', 'must be an integer 0-60000')

  const stats: UploadShapingStats = { served: 0, held: 0, cancelled: 0, released: 0 }
  const servedTo = new Map<number, Set<unknown>>()
  const restores: Array<() => void> = []
  const drops = new Map<WirePeer, () => void>()
  let closed = false

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
    const onrequest = peer.onrequest
    const oncancel = peer.oncancel
    const held = new Map<number, { timer: NodeJS.Timeout; release: () => void }>()

    peer.onrequest = function (msg: WireRequest) {
      const plainBlock = msg.block !== null && msg.hash === null && msg.seek === null && msg.upgrade === null
      if (closed || !plainBlock) return onrequest.call(this, msg)
      const index = msg.block!.index
      const set = servedTo.get(index)
      if (!set || set.has(who) || set.size < peersPerBlock) {
        remember(index, who)
        stats.served++
        return onrequest.call(this, msg)
      }
      stats.held++
      const release = (): void => {
        held.delete(msg.id)
        remember(index, who)
        stats.released++
        try {
          Promise.resolve(onrequest.call(peer, msg)).catch(() => {})
        } catch {
          // the peer went away while the request was held: nothing to answer
        }
      }
      const previous = held.get(msg.id) // a reused request id replaces the old request
      if (previous) clearTimeout(previous.timer)
      held.set(msg.id, { timer: setTimeout(release, holdMs), release })
    }
    peer.oncancel = function (msg: { request: number }) {
      const h = held.get(msg.request)
      if (h) {
        clearTimeout(h.timer)
        held.delete(msg.request)
        stats.cancelled++
      }
      return oncancel.call(this, msg)
    }
    drops.set(peer, () => { for (const h of held.values()) clearTimeout(h.timer); held.clear() })
    restores.push(() => {
      peer.onrequest = onrequest
      peer.oncancel = oncancel
      for (const h of [...held.values()]) { clearTimeout(h.timer); h.release() }
    })
  }

  const onPeerAdd = (peer: WirePeer) => wrap(peer)
  // A peer that leaves takes its held requests with it.
  const onPeerRemove = (peer: WirePeer) => { drops.get(peer)?.(); drops.delete(peer) }
  core.on('peer-add', onPeerAdd)
  core.on('peer-remove', onPeerRemove)
  for (const peer of core.peers as unknown as WirePeer[]) wrap(peer)

  return {
    stats: () => ({ ...stats }),
    close () {
      if (closed) return
      closed = true
      core.off('peer-add', onPeerAdd)
      core.off('peer-remove', onPeerRemove)
      for (const restore of restores.splice(0)) restore()
      servedTo.clear()
    }
  }
}

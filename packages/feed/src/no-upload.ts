import type Hypercore from 'hypercore'

/**
 * A core that downloads but never uploads block data: the SDK's 'client-only' upload policy
 * (spec 3: "practically zero viewer-to-viewer upload"; a phone on cellular). Joining a topic
 * unannounced is not enough: a connection this viewer dialed replicates both ways, and the
 * network lab measured client-only phones uploading 0.2-0.4 × the stream to the viewers they
 * dialed (docs/architecture.md "Swarm behaviour under real networks"). So on every peer of
 * the core:
 *
 * - the sync message says `uploading: false`; hypercore then never sends this peer a block
 *   request (its `_updatePeer` skips a peer whose remote is not uploading), so nobody waits on
 *   a phone for a block it will not send;
 * - a block request that comes anyway (a peer that had asked before the sync, or another
 *   implementation) gets "no data" at once, so it moves on to another peer instead of
 *   timing out. Requests without a block (an upgrade or a seek: the core's length and tree
 *   proofs, a few hundred bytes) are still answered.
 *
 * Wraps hypercore 11's per-peer `wireSync.send` and `onrequest` (internals, pinned to
 * hypercore 11.37.1 by the workspace override, as upload shaping does); a test fails if they
 * change. `close()` restores both and re-sends a sync saying `uploading: true`.
 */
export interface UploadRefusal {
  /** Block requests answered with "no data" so far. */
  refused(): number
  close(): void
}

interface WirePeer {
  onrequest(msg: { id: number; block: { index: number } | null }): unknown
  wireSync?: { send(msg: Record<string, unknown>): unknown }
  wireNoData?: { send(msg: { request: number; reason: number }): unknown }
  sendSync?(): void
}

/** hypercore's "not available" no-data reason (lib/replicator.js NOT_AVAILABLE). */
const NOT_AVAILABLE = 1

export function refuseUploads (core: Hypercore): UploadRefusal {
  let refused = 0
  let closed = false
  const restores = new Map<WirePeer, () => void>()

  const wrap = (peer: WirePeer): void => {
    if (closed || restores.has(peer) || typeof peer.onrequest !== 'function' || typeof peer.wireSync?.send !== 'function') return
    const sync = peer.wireSync
    const send = sync.send
    const onrequest = peer.onrequest
    sync.send = function (msg: Record<string, unknown>) { return send.call(this, { ...msg, uploading: false }) }
    peer.onrequest = function (msg) {
      if (msg.block === null || typeof peer.wireNoData?.send !== 'function') return onrequest.call(this, msg)
      refused++
      peer.wireNoData.send({ request: msg.id, reason: NOT_AVAILABLE })
      return undefined
    }
    restores.set(peer, () => {
      sync.send = send
      peer.onrequest = onrequest
      try { peer.sendSync?.() } catch { /* the peer is gone */ }
    })
    // Tell the peer now: a sync it already got said uploading: true.
    try { peer.sendSync?.() } catch { /* not open yet: the first sync goes through the wrapper */ }
  }
  const onPeerAdd = (peer: WirePeer): void => { wrap(peer) }
  const onPeerRemove = (peer: WirePeer): void => { restores.delete(peer) }
  core.on('peer-add', onPeerAdd)
  core.on('peer-remove', onPeerRemove)
  for (const peer of core.peers as unknown as WirePeer[]) wrap(peer)
  return {
    refused: () => refused,
    close () {
      if (closed) return
      closed = true
      core.off('peer-add', onPeerAdd)
      core.off('peer-remove', onPeerRemove)
      for (const restore of restores.values()) restore()
      restores.clear()
    }
  }
}

import type Hypercore from 'hypercore'

/** What this module uses of a hypercore 11 replication peer (`core.core.replicator.peers`). */
interface PushPeer {
  /** The replica accepts pushed blocks (the catalog reader opens its core with `allowPush`). */
  remoteAllowPush: boolean
  /** The length the replica last told us it has. */
  remoteLength: number
  /** The length the newest upgrade we sent it (pushed or asked for) leads to. */
  pushedLength: number
  push (index: number): Promise<void>
}

/**
 * Sends each new catalog head to the replicas that accept pushes, with the upgrade to it,
 * instead of waiting for them to ask: a live edit reaches a viewer one round trip sooner
 * (docs/architecture.md "Edit propagation"). A replica verifies every pushed block against the
 * panel key like any other. At most one unacknowledged upgrade per replica: while one is on
 * its way, later appends are left to the replica's own upgrade request (the panel announces
 * every new length), so a burst of appends costs a replica about one push per round trip, as
 * its requests would. Best effort: a failed push only means the replica asks, as before.
 *
 * Returns a function that stops it.
 */
export function pushNewestBlocks (core: Hypercore): () => void {
  const replicator = (core as unknown as { core?: { replicator?: { peers?: unknown } } }).core?.replicator
  if (!Array.isArray(replicator?.peers)) return () => {}
  const onAppend = (): void => {
    const peers = replicator.peers
    if (!Array.isArray(peers)) return
    const index = core.length - 1
    for (const peer of peers as PushPeer[]) {
      if (peer.remoteAllowPush !== true || peer.pushedLength > peer.remoteLength || typeof peer.push !== 'function') continue
      peer.push(index).catch(() => {})
    }
  }
  core.on('append', onAppend)
  return () => { core.off('append', onAppend) }
}

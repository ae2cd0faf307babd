import type Hyperbee from 'hyperbee'

/** At most this many of the newest blocks of one write are pushed; readers request the rest. */
export const PUSH_MAX_BLOCKS = 8

/** How long a write waits for its pushes before it resolves anyway (they go on meanwhile). */
export const PUSH_WAIT_MS = 5

interface PushingReplicator { push: (index: number) => Promise<void> }

/**
 * Sends the blocks a write appended, with the proof that upgrades a reader to the new length,
 * to every connected reader that asked for pushes (hypercore's `allowPush`, set by the catalog
 * reader). Without it a reader hears the new length, asks for the upgrade and the newest block,
 * and waits a round trip for the answer (docs/architecture.md "Edit propagation"). Each reader
 * verifies a pushed block against the panel's signature like any other; a reader that does not
 * allow pushes is skipped by hypercore and requests as before.
 *
 * Returns a function to call after each write that appended; it pushes what was appended since
 * the previous call and never throws.
 */
export function pusher (bee: Hyperbee): () => Promise<void> {
  let pushed = bee.core.length
  return async () => {
    const end = bee.core.length
    const start = Math.max(pushed, end - PUSH_MAX_BLOCKS)
    pushed = Math.max(pushed, end)
    const replicator = (bee.core as unknown as { core?: { replicator?: Partial<PushingReplicator> } }).core?.replicator
    if (typeof replicator?.push !== 'function') return
    for (let i = start; i < end; i++) {
      try {
        await replicator.push(i)
      } catch {
        // A peer that left mid-push; the others were served and readers still request.
      }
    }
  }
}

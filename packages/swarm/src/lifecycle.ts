import type Corestore from 'corestore'
import type HyperDHT from 'hyperdht'
import type Hyperswarm from 'hyperswarm'
import { SwarmError } from './errors.js'

/**
 * Something {@link closeAll} can close: a swarm or DHT (`destroy()`), a store, core, bee or
 * drive (`close()`), or `null`/`undefined` (skipped, for half-built teardown lists).
 */
export type Closable =
  | { destroy(): Promise<unknown> }
  | { close(): Promise<unknown> }
  | null
  | undefined

/**
 * Replicates `store` over every new swarm connection (`store.replicate(conn)`), the one
 * connection that also carries the RPC. Returns a function that stops doing so for later
 * connections (running replication sessions are left alone).
 */
export function replicateOnConnection (swarm: Hyperswarm, store: Corestore): () => void {
  const onConnection = (conn: HyperDHT.NoiseSocket): void => {
    // A store mid-close throws from replicate(); a late connection then simply goes unreplicated.
    if (store.closing != null || store.closed) return
    store.replicate(conn)
  }
  swarm.on('connection', onConnection)
  return () => { swarm.off('connection', onConnection) }
}

function isDestroyable (r: object): r is { destroy(): Promise<unknown> } {
  return typeof (r as { destroy?: unknown }).destroy === 'function' &&
    typeof (r as { close?: unknown }).close !== 'function'
}

/**
 * Closes resources: first every swarm/DHT (anything with `destroy()` but no `close()`),
 * then everything with `close()`, each group in the given order, one at a time. Closing
 * twice is harmless. Every resource is attempted even if an earlier one fails.
 * @throws SwarmError `SWARM_CLOSE_FAILED` afterwards, its `cause` an AggregateError of the failures.
 */
export async function closeAll (...resources: Closable[]): Promise<void> {
  const present = resources.filter((r): r is NonNullable<Closable> => r !== null && r !== undefined)
  const destroyable = present.filter(isDestroyable)
  const closable = present.filter((r) => !isDestroyable(r)) as Array<{ close(): Promise<unknown> }>
  const errors: unknown[] = []
  for (const r of destroyable) {
    try { await r.destroy() } catch (err) { errors.push(err) }
  }
  for (const r of closable) {
    try { await r.close() } catch (err) { errors.push(err) }
  }
  if (errors.length > 0) throw SwarmError.closeFailed(errors)
}

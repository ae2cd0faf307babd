import { AsyncLocalStorage } from 'node:async_hooks'
import type { PanelCore } from '../context.js'

/**
 * One grant materialization at a time per panel (a reconcile, a user created or re-keyed, a
 * user deleted): each reads the group keys, decides rotations and seals against them, so two
 * interleaved would seal under a generation the other just replaced. Re-entrant: an operation
 * already holding the lock (revoke → reconcile) runs on. Keyed by the catalog writer, which
 * the daemon's context and the config sections' core share.
 */

const holding = new AsyncLocalStorage<ReadonlySet<object>>()
const tails = new WeakMap<object, Promise<void>>()

export async function withGrantLock<T> (ctx: Pick<PanelCore, 'catalog'>, fn: () => Promise<T>): Promise<T> {
  const owner = ctx.catalog
  const held = holding.getStore()
  if (held?.has(owner) === true) return fn()
  const before = tails.get(owner) ?? Promise.resolve()
  let release!: () => void
  const mine = new Promise<void>((resolve) => { release = resolve })
  tails.set(owner, before.then(() => mine))
  await before
  try {
    return await holding.run(new Set([...(held ?? []), owner]), fn)
  } finally {
    release()
  }
}

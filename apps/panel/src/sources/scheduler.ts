import type { PanelCore } from '../context.js'
import { syncSource } from '../ops/source-sync.js'
import { applySourceRemovals, purgeOrphans } from '../ops/sources.js'
import type { SourceEntry, SourceState } from '../registries.js'

/**
 * The sync schedule of every enabled source, in the running panel: a source syncs when it
 * was never synced, when its registry entry changed (an API or CLI edit), and every
 * `intervalMs` after its last sync. A failing source is retried with exponential backoff
 * (5 s, 10 s, 20 s … capped at its intervalMs), reset by a good sync, so a broken provider
 * is not hammered; `enabled: false` pauses it. One sync at a time; every look at the
 * registry is a small file read.
 */

/** How often the scheduler looks at the registry. */
export const SOURCE_TICK_MS = 5000
/** Wait before the first retry of a failed sync; doubles with each further failure (spec 1 "Source sync policy" 8: the next tick retries). */
export const SOURCE_RETRY_BASE_MS = 5000

/** How long after its latest failure a source that failed `failures` times in a row is retried. */
export function retryDelayMs (failures: number, intervalMs: number): number {
  const doublings = Math.min(Math.max(failures, 1) - 1, 30)
  return Math.min(intervalMs, SOURCE_RETRY_BASE_MS * 2 ** doublings)
}

/** Whether an enabled, unedited source is due at `now`. */
export function syncDue (s: Pick<SourceEntry, 'intervalMs'>, st: SourceState | undefined, now: number): boolean {
  if (st === undefined) return true
  const lastOk = st.lastSync?.at ?? 0
  const lastFail = st.lastError?.at ?? 0
  if (lastFail > lastOk) return now - lastFail >= retryDelayMs(st.failures ?? 1, s.intervalMs)
  return now - lastOk >= s.intervalMs
}

export interface SourceScheduler {
  /** Look now (after an edit), instead of at the next tick. */
  poke(): void
  close(): Promise<void>
}

export function startSourceScheduler (ctx: PanelCore, init: { tickMs?: number } = {}): SourceScheduler {
  const seen = new Map<string, string>()
  let running: Promise<void> | null = null
  let closed = false
  const tick = async () => {
    // Removed beside the running panel (the CLI edits the registry): the channels are purged,
    // or detached with --keep-channels, as rule 5 says.
    for (const r of await applySourceRemovals(ctx)) {
      seen.delete(r.source)
      ctx.log.info({ event: 'source.removed', source: r.source, count: r.purged + r.detached }, r.detached > 0 ? 'channels of a removed source detached' : 'channels of a removed source purged')
    }
    const sources = await ctx.registries.sources.all()
    // Read after `sources`: a removal is recorded before its source entry goes.
    const removals = await ctx.registries.sourceRemovals.all()
    const state = await ctx.registries.sourceState.all()
    const now = Date.now()
    for (const name of [...seen.keys()]) {
      if (Object.hasOwn(sources, name) || Object.hasOwn(removals, name)) continue
      // Gone without a recorded removal (an older CLI): its channels go.
      seen.delete(name)
      const gone = await purgeOrphans(ctx, name)
      if (gone > 0) ctx.log.info({ event: 'source.removed', source: name, count: gone }, 'channels of a removed source purged')
    }
    for (const [name, s] of Object.entries(sources)) {
      if (closed) return
      const fingerprint = JSON.stringify(s)
      const edited = seen.get(name) !== fingerprint
      seen.set(name, fingerprint)
      if (!s.enabled || !(edited || syncDue(s, state[name], now))) continue
      await syncSource(ctx, name).catch(() => {}) // every failure is recorded in the source state and logged by syncSource
    }
  }
  const run = () => {
    if (running !== null || closed) return
    running = tick().catch((err: Error) => { ctx.log.warn({ event: 'source.schedule-failed', err: err.message }, 'source schedule tick failed') })
      .finally(() => { running = null })
  }
  const timer = setInterval(run, init.tickMs ?? SOURCE_TICK_MS)
  timer.unref()
  return {
    poke: run,
    async close () {
      closed = true
      clearInterval(timer)
      await running
    }
  }
}

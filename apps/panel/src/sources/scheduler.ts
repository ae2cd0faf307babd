import type { PanelCore } from '../context.js'
import { purgeOrphans, syncSource } from '../ops/sources.js'

/**
 * The sync schedule of every enabled source, in the running panel: a source syncs when it
 * was never synced, when its registry entry changed (an API or CLI edit), and every
 * `intervalMs` after its last sync. A failed pull is retried after min(intervalMs, 5 min);
 * `enabled: false` pauses it. One sync at a time; every look at the registry is a small file read.
 */

/** How often the scheduler looks at the registry. */
export const SOURCE_TICK_MS = 5000
const RETRY_MAX_MS = 5 * 60_000

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
    const sources = await ctx.registries.sources.all()
    const state = await ctx.registries.sourceState.all()
    const now = Date.now()
    for (const name of [...seen.keys()]) {
      if (Object.hasOwn(sources, name)) continue
      // Removed beside the running panel (the CLI edits the registry): its channels go, as rule 5 says.
      seen.delete(name)
      const gone = await purgeOrphans(ctx, name)
      if (gone > 0) ctx.log.info({ event: 'source.removed', source: name, count: gone }, 'channels of a removed source purged')
    }
    for (const [name, s] of Object.entries(sources)) {
      if (closed) return
      const fingerprint = JSON.stringify(s)
      const edited = seen.get(name) !== fingerprint
      seen.set(name, fingerprint)
      if (!s.enabled) continue
      const st = state[name]
      const lastOk = st?.lastSync?.at ?? 0
      const lastFail = st?.lastError?.at ?? 0
      const due = st === undefined || edited ||
        (lastFail > lastOk ? now - lastFail >= Math.min(s.intervalMs, RETRY_MAX_MS) : now - lastOk >= s.intervalMs)
      if (!due) continue
      await syncSource(ctx, name).catch(() => {}) // recorded in the source state and logged by syncSource
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

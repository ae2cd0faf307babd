import type Corestore from 'corestore'
import type Hyperswarm from 'hyperswarm'
import { z } from 'zod'
import type { CatalogReader, RangeChange, RangeWatch, StreamRecord } from '@arus/catalog'
import { readJsonFile, writeJsonAtomic, type Logger } from '@arus/service'
import { FeedMirror, type FeedMirrorStats, type MirrorTarget } from './feed-mirror.js'
import { selects, type Selection } from './selection.js'

/** How often windows expire and the disk budget is checked. */
export const TICK_MS = 2000
/** A live channel's newest blocks are never shed for the budget: viewers at the edge need them. */
export const LIVE_KEEP_MS = 30_000
/** A title evicted for the budget is not admitted again this soon unless viewers ask for it (no flapping). */
export const EVICT_COOLDOWN_MS = 60_000
/** Titles are admitted up to this share of the budget: the rest is room for live windows to grow. */
export const ADMIT_FILL = 0.8

export interface RepeaterInit {
  store: Corestore
  swarm: Hyperswarm
  catalog: CatalogReader
  selection: Selection
  retentionSeconds: number
  maxDiskBytes: number
  /** mirrors.json: what is held, so a restart reclaims what is no longer selected. */
  mirrorsFile: string
  log: Logger
}

const HeldFile = z.object({
  v: z.literal(1),
  mirrors: z.array(z.object({ id: z.string(), type: z.enum(['live', 'vod']), feedKey: z.string().regex(/^[0-9a-f]{64}$/), blobsKey: z.string().regex(/^[0-9a-f]{64}$/) }))
})

/** The mirror a record asks for, or null when it is not mirrored (unselected, no feed, unavailable). */
export function targetOf (sel: Selection, id: string, record: StreamRecord | null): MirrorTarget | null {
  if (record === null || record.feedKey === null || record.blobsKey === null) return null
  if (record.type === 'vod' && record.status === 'unavailable') return null
  if (!selects(sel, id, record.category)) return null
  return { id, type: record.type, feedKey: record.feedKey, blobsKey: record.blobsKey }
}

const sameTarget = (a: MirrorTarget, b: MirrorTarget): boolean => a.feedKey === b.feedKey && a.blobsKey === b.blobsKey && a.type === b.type

/**
 * The repeater: follows the panel's catalog (`catalog/` records), keeps one {@link FeedMirror}
 * per selected record, re-targets it when the record's feedKey rotates, drops and reclaims it
 * when the record goes, and holds everything within the disk budget (coldest first).
 */
export class Repeater {
  private readonly mirrors = new Map<string, FeedMirror>()
  private watch: RangeWatch | null = null
  private timer: NodeJS.Timeout | null = null
  private queue: Promise<void> = Promise.resolve()
  private closed = false
  private overBudget = false
  /** Catalog changes applied (for status and tests). */
  updates = 0

  constructor (private readonly init: RepeaterInit) {}

  async start (): Promise<void> {
    const held = await readJsonFile(this.init.mirrorsFile, HeldFile, { missing: 'null' }).catch((err: Error) => {
      this.init.log.warn({ event: 'mirrors.unreadable', err: err.message }, 'mirrors.json unreadable: starting without it')
      return null
    })
    const previous = held?.mirrors ?? []
    this.watch = this.init.catalog.watch('catalog/', (changes) => { this.enqueue(() => this.apply(changes)) }, {
      initial: true,
      onError: (err) => this.init.log.warn({ event: 'catalog.watch', err: (err as Error).message }, 'catalog read failed; retrying')
    })
    // After the first scan (whenever the panel's catalog is reachable): what an earlier run
    // held and the catalog no longer asks for is reclaimed.
    void this.watch.ready().then(() => {
      for (const t of previous) {
        this.enqueue(async () => {
          const now = this.mirrors.get(t.id)
          if (now !== undefined && sameTarget(now.target, t)) return
          if ([...this.mirrors.values()].some((m) => m.target.feedKey === t.feedKey || m.target.blobsKey === t.blobsKey)) return
          const stale = new FeedMirror(t, { store: this.init.store, swarm: this.init.swarm }, this.init.retentionSeconds * 1000)
          await stale.meta.core.ready()
          await stale.blobs.core.ready()
          await Promise.all([stale.meta.purge(), stale.blobs.purge()])
          this.init.log.info({ event: 'mirror.reclaimed', id: t.id, feedKey: t.feedKey }, 'reclaimed a mirror the catalog no longer asks for')
        })
      }
      this.enqueue(() => this.saveHeld())
    }, () => {})
    this.timer = setInterval(() => { this.enqueue(() => this.tick()) }, TICK_MS)
    this.timer.unref?.()
  }

  private enqueue (fn: () => Promise<void>): void {
    this.queue = this.queue.then(async () => {
      if (this.closed) return
      try {
        await fn()
      } catch (err) {
        this.init.log.warn({ event: 'repeater.step', err: (err as Error).message }, 'a mirror step failed; the next catalog update or tick retries')
      }
    })
  }

  private async apply (changes: RangeChange[]): Promise<void> {
    let changed = false
    for (const { key, value } of changes) {
      const id = key.slice('catalog/'.length)
      const target = targetOf(this.init.selection, id, value as StreamRecord | null)
      const current = this.mirrors.get(id)
      if (current !== undefined && target !== null && sameTarget(current.target, target)) continue
      if (current !== undefined) {
        this.mirrors.delete(id)
        await current.purge()
        changed = true
        const record = value as StreamRecord | null
        // A new generation (rotation, source change, re-ingest) may land in two writes: the
        // feedKey first, its blobsKey after; either way the old generation is retired.
        const rotated = record !== null && record.feedKey !== null && record.feedKey !== current.target.feedKey
        const fields = { id, feedKey: current.target.feedKey, ...(record?.feedKey ? { to: record.feedKey } : {}) }
        if (rotated) this.init.log.info({ event: 'mirror.retargeted', ...fields }, 'feed rotated: the old generation reclaimed')
        else this.init.log.info({ event: 'mirror.dropped', ...fields, reason: record === null ? 'deleted' : 'unselected' }, 'mirror dropped and reclaimed')
      }
      if (target !== null) {
        const mirror = new FeedMirror(target, { store: this.init.store, swarm: this.init.swarm }, this.init.retentionSeconds * 1000)
        this.mirrors.set(id, mirror)
        await mirror.start()
        changed = true
        this.init.log.info({ event: 'mirror.started', id, type: target.type, feedKey: target.feedKey }, 'mirroring')
      }
    }
    this.updates++
    if (changed) await this.saveHeld()
  }

  private async saveHeld (): Promise<void> {
    const mirrors = [...this.mirrors.values()].map((m) => ({ ...m.target }))
    await writeJsonAtomic(this.init.mirrorsFile, { v: 1, mirrors })
  }

  /**
   * Expires live windows, then holds the disk budget: over it, sheds from the coldest first
   * (a title whole, before a live channel's oldest blocks when equally cold); under it, admits
   * the waiting titles that fit whole (viewers asking first), a title evicted less than
   * EVICT_COOLDOWN_MS ago only when viewers ask for it.
   */
  private async tick (): Promise<void> {
    const now = Date.now()
    const all = [...this.mirrors.values()]
    for (const m of all) await m.tick()
    const budget = this.init.maxDiskBytes
    let used = all.reduce((n, m) => n + m.bytesHeld, 0)
    if (used > budget) {
      const order = [...all].filter((m) => !m.evicted).sort((a, b) => a.heat - b.heat || (a.target.type === b.target.type ? b.bytesHeld - a.bytesHeld : a.target.type === 'vod' ? -1 : 1))
      for (const m of order) {
        if (used <= budget) break
        const freed = await m.shed(used - budget, LIVE_KEEP_MS, now)
        used -= freed
        if (freed > 0) this.init.log.info({ event: 'budget.shed', id: m.target.id, type: m.target.type, freed, used, budget }, m.target.type === 'vod' ? 'title evicted for the disk budget' : 'oldest live blocks shed for the disk budget')
      }
    } else if (!all.some((m) => m.settling)) {
      // Live windows still filling are reserved for: a title is admitted only if it fits beside
      // them (so none is admitted before every live channel's rate is known).
      used = all.reduce((n, m) => n + m.projectedBytes, 0)
      const waiting = all.filter((m) => m.evicted && m.fullBytes > 0).sort((a, b) => b.stats().peers - a.stats().peers)
      for (const m of waiting) {
        const asked = m.stats().peers > 0
        if (m.evictedAt > 0 && now - m.evictedAt < EVICT_COOLDOWN_MS && !asked) continue
        if (used + m.fullBytes > budget * ADMIT_FILL) continue
        m.admit()
        used += m.fullBytes
        this.init.log.info({ event: 'budget.admit', id: m.target.id, bytes: m.fullBytes, used, budget }, 'title mirrored within the disk budget')
      }
    }
    const over = used > budget
    if (over !== this.overBudget) {
      this.overBudget = over
      if (over) this.init.log.warn({ event: 'budget.exceeded', used, budget }, 'the live windows alone exceed MAX_DISK_MB: raise it, or mirror fewer channels')
    }
  }

  /** Resolves once the catalog watch reported everything up to its current version and it was applied. */
  async settled (): Promise<void> {
    await this.watch?.settled()
    await this.queue
  }

  stats (): { mirrors: FeedMirrorStats[]; bytesHeld: number; maxDiskBytes: number; overBudget: boolean; updates: number } {
    const mirrors = [...this.mirrors.values()].map((m) => m.stats())
    return { mirrors, bytesHeld: mirrors.reduce((n, m) => n + m.bytesHeld, 0), maxDiskBytes: this.init.maxDiskBytes, overBudget: this.overBudget, updates: this.updates }
  }

  async close (): Promise<void> {
    if (this.closed) return
    this.closed = true
    if (this.timer !== null) clearInterval(this.timer)
    await this.watch?.close()
    await this.queue
    await Promise.all([...this.mirrors.values()].map((m) => m.close()))
    this.mirrors.clear()
  }
}

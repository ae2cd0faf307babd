import { ensurePrivateDir } from '@arus/service'
import { ANALYTICS_FILE_VERSION, DEFAULT_QUERY_DAYS, EXACT_VIEWERS_CAP, SAMPLE_INTERVAL_MS } from './constants.js'
import { newDaySalt, readDaySalt, removeDaySalt, viewerHash, writeDaySalt, type DaySalt } from './day-salt.js'
import type { Analytics, AnalyticsComponents, AnalyticsDay, AnalyticsInit, AnalyticsView } from './index.js'
import { addOnlineSample, daysBefore, emptyHour, reduceHour, utcDate, utcHour, type HourRecord } from './rollup.js'
import { ViewerSketch } from './sketch.js'
import { closeStaleDays, closedDay, listDays, readDay, removeDay, writeDay, type DayFile } from './store.js'

/** The open UTC day, in memory; written to its day file at most once per interval. */
interface OpenDay { date: string; hours: Map<number, HourRecord>; sketch: ViewerSketch }

export class PanelAnalytics implements Analytics {
  readonly enabled = true
  readonly retentionDays: number
  private readonly cap: number
  private day: OpenDay
  private hour: number
  private salt: DaySalt | null = null
  private dirty = false
  /** Disk writes run one at a time, in order: a salt is on disk before any hash made with it. */
  private queue: Promise<void> = Promise.resolve()
  private catalogSampling: Promise<void> = Promise.resolve()
  private timer: ReturnType<typeof setInterval> | null = null
  private opening: Promise<void> | null = null
  private closing: Promise<void> | null = null

  constructor (private readonly components: AnalyticsComponents, private readonly init: AnalyticsInit) {
    this.retentionDays = init.retentionDays
    this.cap = init.exactCap ?? EXACT_VIEWERS_CAP
    const now = components.now()
    this.day = { date: utcDate(now), hours: new Map(), sketch: new ViewerSketch(this.cap) }
    this.hour = utcHour(now)
  }

  ready (): Promise<void> {
    this.opening ??= this.open()
    return this.opening
  }

  loginSucceeded (): void { this.roll(); this.bucket().logins.ok++; this.dirty = true }
  loginFailed (): void { this.roll(); this.bucket().logins.failed++; this.dirty = true }

  sessionIssued (username: string): void {
    this.roll()
    this.bucket().sessions++
    this.day.sketch.add(viewerHash(this.daySalt().salt, username))
    this.dirty = true
  }

  async tick (): Promise<void> {
    if (this.closing) return
    if (!this.roll()) addOnlineSample(this.bucket(), this.components.onlineApps())
    this.dirty = true
    await this.flush()
  }

  async flush (): Promise<void> {
    this.roll()
    if (this.dirty) {
      this.dirty = false
      this.enqueue(() => writeDay(this.init.dir, this.snapshot()), () => { this.dirty = true })
    }
    await this.queue
  }

  async query (init: { days?: number } = {}): Promise<AnalyticsView> {
    this.roll()
    await this.queue // a day closed just now is on disk before it is read back
    const n = Math.max(1, Math.min(init.days ?? DEFAULT_QUERY_DAYS, this.retentionDays))
    const from = daysBefore(this.day.date, n - 1)
    const days: AnalyticsDay[] = []
    for (const date of await listDays(this.init.dir)) {
      if (date < from || date >= this.day.date) continue
      const file = await readDay(this.init.dir, date).catch((err: unknown) => { this.unreadable(date, err); return null })
      if (file) days.push(view(file))
    }
    days.push(view(this.snapshot(false)))
    return { enabled: true, retentionDays: this.retentionDays, days, current: { date: this.day.date, hour: this.hour, ...reduceHour(this.bucket()) } }
  }

  close (): Promise<void> {
    this.closing ??= (async () => {
      await this.opening?.catch(() => {})
      if (this.timer) clearInterval(this.timer)
      this.timer = null
      await this.catalogSampling
      this.dirty = true
      await this.flush()
    })()
    return this.closing
  }

  /** Call before recording: counts made while it runs could be overwritten by the stored day. */
  private async open (): Promise<void> {
    const { dir, saltFile } = this.init
    const now = this.components.now()
    this.day = { date: utcDate(now), hours: new Map(), sketch: new ViewerSketch(this.cap) }
    this.hour = utcHour(now)
    await ensurePrivateDir(dir)
    const today = this.day.date
    const salt = await readDaySalt(saltFile)
    // A salt of another day is never used again (the panel was down at that rollover).
    if (salt && salt.date === today) this.salt = salt
    else await removeDaySalt(saltFile)
    await closeStaleDays(dir, today, this.cap, (date, err) => this.unreadable(date, err))
    const stored = await readDay(dir, today).catch((err: unknown) => { this.unreadable(today, err); return null })
    if (stored) {
      for (const [h, rec] of Object.entries(stored.hours)) this.day.hours.set(Number(h), rec)
      // Without its salt (deleted by hand) old hashes stay: a returning viewer may count twice.
      if (stored.viewers) this.day.sketch = new ViewerSketch(this.cap, stored.viewers)
    }
    await this.prune(today)
    this.startHour(false)
    const interval = this.init.intervalMs ?? SAMPLE_INTERVAL_MS
    if (interval > 0) {
      this.timer = setInterval(() => { this.tick().catch((err: unknown) => this.failed('tick', err)) }, interval)
      this.timer.unref()
    }
  }

  /** Moves to the clock's hour (and day); true when it did, with the new hour's first sample taken. */
  private roll (): boolean {
    const now = this.components.now()
    const date = utcDate(now)
    const hour = utcHour(now)
    // A clock stepping back never reopens a closed day.
    if (date < this.day.date || (date === this.day.date && hour === this.hour)) return false
    if (date > this.day.date) this.closeDay(date)
    this.hour = hour
    this.startHour(true)
    return true
  }

  /** The day ends: its file keeps the counts only, then the salt goes; hashes and salt leave memory. */
  private closeDay (next: string): void {
    const final = closedDay(this.snapshot(), this.cap)
    this.day = { date: next, hours: new Map(), sketch: new ViewerSketch(this.cap) }
    this.salt = null
    this.dirty = true
    this.enqueue(async () => {
      await writeDay(this.init.dir, final)
      await removeDaySalt(this.init.saltFile)
      await this.prune(next)
    })
  }

  private startHour (sampleOnline: boolean): void {
    const bucket = this.bucket()
    if (sampleOnline || bucket.onlineApps.samples === 0) addOnlineSample(bucket, this.components.onlineApps())
    const counts = this.components.catalogCounts
    if (counts === undefined || bucket.catalog !== undefined) return
    this.catalogSampling = this.catalogSampling.then(async () => {
      try {
        bucket.catalog = await counts()
        this.dirty = true
      } catch (err) {
        this.failed('catalog', err)
      }
    })
  }

  private bucket (): HourRecord {
    let b = this.day.hours.get(this.hour)
    if (!b) { b = emptyHour(); this.day.hours.set(this.hour, b) }
    return b
  }

  private daySalt (): DaySalt {
    if (this.salt === null) {
      const s = newDaySalt(this.day.date)
      this.salt = s
      this.enqueue(() => writeDaySalt(this.init.saltFile, s))
    }
    return this.salt
  }

  /** The open day as its file holds it (a copy: later counts do not change it). */
  private snapshot (withViewers = true): DayFile {
    const hours: DayFile['hours'] = {}
    for (const [h, rec] of [...this.day.hours].sort((a, b) => a[0] - b[0])) hours[String(h)] = structuredClone(rec)
    const day: DayFile = { v: ANALYTICS_FILE_VERSION, date: this.day.date, hours, uniqueViewers: this.day.sketch.count() }
    return withViewers ? { ...day, viewers: this.day.sketch.toJSON() } : day
  }

  private async prune (today: string): Promise<void> {
    const oldest = daysBefore(today, this.retentionDays - 1)
    for (const date of await listDays(this.init.dir)) if (date < oldest) await removeDay(this.init.dir, date)
  }

  private enqueue (write: () => Promise<void>, onError?: () => void): void {
    this.queue = this.queue.then(write).catch((err: unknown) => { onError?.(); this.failed('write', err) })
  }

  private failed (what: string, err: unknown): void {
    // The message names a path at most, never a count source or a salt.
    this.components.log.warn({ event: 'analytics.failed', what, err: (err as Error).message }, 'analytics step failed')
  }

  private unreadable (date: string, err: unknown): void {
    this.components.log.warn({ event: 'analytics.unreadable', date, err: (err as Error).message }, 'analytics day file unreadable')
  }
}

function view (file: DayFile): AnalyticsDay {
  const hours: AnalyticsDay['hours'] = {}
  for (const [h, rec] of Object.entries(file.hours)) hours[h] = reduceHour(rec)
  return { date: file.date, hours, day: { uniqueViewers: file.uniqueViewers } }
}

import { randomBytes } from 'node:crypto'
import { rename } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import { readJsonFile, writeJsonAtomic, type Logger } from '@arus/service'
import { ALERT_FLUSH_MS, MAX_STORED_ALERTS, MAX_TRACKED_REPORTERS, REPORTS_FILE_VERSION } from './constants.js'
import { Alert, IngestCounters } from './schemas.js'

/** alerts.json: alerts (counts only) and the ingest counters. */
export const AlertsFile = z.strictObject({ v: z.literal(REPORTS_FILE_VERSION), alerts: z.array(Alert), counters: IngestCounters })
export type AlertsFile = z.infer<typeof AlertsFile>

export const alertsFilePath = (dir: string): string => join(dir, 'alerts.json')

/** Where a report is correlated: its channel, or panel-wide for category 'login'. */
export type AlertKey = { kind: 'channel'; channel: string } | { kind: 'login' }

const keyOf = (k: AlertKey): string => (k.kind === 'login' ? 'login' : `channel:${k.channel}`)

/** An alert that is open or acknowledged, with its distinct reporters (memory only, never on disk). */
interface Active { alert: Alert; reporters: Set<string> }

/** What one observed report did to the alerts. */
export interface Observation { alert: Alert | null; opened: boolean }

/** Reads alerts.json; missing → empty, corrupt → kept aside and empty. */
export async function loadAlertsFile (dir: string, log?: Logger): Promise<AlertsFile> {
  const file = alertsFilePath(dir)
  try {
    return (await readJsonFile(file, AlertsFile, { missing: 'null' })) ?? emptyAlerts()
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'SERVICE_CORRUPT_FILE' || log === undefined) throw err
    const aside = `${file}.corrupt-${Date.now()}`
    await rename(file, aside)
    log.error({ event: 'reports.file.corrupt', aside }, 'alerts.json is corrupt: kept aside, starting with no alerts')
    return emptyAlerts()
  }
}

const emptyAlerts = (): AlertsFile => ({ v: REPORTS_FILE_VERSION, alerts: [], counters: { shed: 0, collapsed: 0, throttled: 0 } })

/**
 * Correlation and alerts (spec 1 "Alert", "States and transitions"): distinct reporters per
 * key within the window; reaching the threshold opens one alert, later reports extend it.
 * Windows and reporter sets live in memory and are lost at restart; alerts and counters are
 * written at most once per {@link ALERT_FLUSH_MS} for ingest, at once for an operator change.
 */
export class AlertBook {
  readonly alerts: Alert[]
  readonly counters: IngestCounters
  private readonly active = new Map<string, Active>()
  private readonly windows = new Map<string, Map<string, { at: number; category: string }>>()
  private timer: NodeJS.Timeout | null = null
  private lastWrite = 0
  private writing: Promise<void> = Promise.resolve()
  /** Writes of alerts.json so far (metrics, tests). */
  writes = 0

  constructor (private readonly dir: string, loaded: AlertsFile, private readonly init: { threshold: number; windowMs: number; log: Logger; now: () => number }) {
    this.alerts = loaded.alerts
    this.counters = loaded.counters
    for (const a of this.alerts) {
      if (a.status !== 'resolved') this.active.set(keyOf(a.kind === 'login' ? { kind: 'login' } : { kind: 'channel', channel: a.channel ?? '' }), { alert: a, reporters: new Set() })
    }
  }

  /** The open or acknowledged alert of `key`, if any. */
  activeFor (key: AlertKey): Alert | null {
    return this.active.get(keyOf(key))?.alert ?? null
  }

  /** Counts one report by `reporter` at `now` under `key`. */
  observe (key: AlertKey, reporter: string, category: string, now: number): Observation {
    const k = keyOf(key)
    const active = this.active.get(k)
    if (active) {
      extend(active, reporter, category, now)
      this.touch()
      return { alert: active.alert, opened: false }
    }
    const window = this.windows.get(k) ?? new Map<string, { at: number; category: string }>()
    this.windows.set(k, window)
    window.delete(reporter)
    window.set(reporter, { at: now, category }) // Map order: oldest first, so the sweep stops at the first fresh one
    this.expire(window, now)
    if (window.size < this.init.threshold) return { alert: null, opened: false }
    const categories: Record<string, number> = {}
    for (const e of window.values()) categories[e.category] = (categories[e.category] ?? 0) + 1
    const alert: Alert = {
      id: `a-${now.toString(36)}-${randomBytes(3).toString('hex')}`,
      kind: key.kind,
      channel: key.kind === 'login' ? null : key.channel,
      categories,
      reporters: Math.min(window.size, MAX_TRACKED_REPORTERS),
      reportersLowerBound: window.size > MAX_TRACKED_REPORTERS,
      openedAt: now,
      lastAt: now,
      status: 'open',
      ackAt: null,
      resolvedAt: null,
      shedCount: 0,
      sampled: 0,
      collapsed: 0
    }
    this.active.set(k, { alert, reporters: new Set([...window.keys()].slice(-MAX_TRACKED_REPORTERS)) })
    this.windows.delete(k)
    this.alerts.push(alert)
    this.trim()
    this.touch()
    return { alert, opened: true }
  }

  /** Drops correlation windows with nothing inside the window (called now and then). */
  sweep (now: number): void {
    for (const [k, window] of this.windows) {
      this.expire(window, now)
      if (window.size === 0) this.windows.delete(k)
    }
  }

  /** Operator transition (forward only; a repeated or backward one answers the alert unchanged). Written at once. */
  async setStatus (alert: Alert, to: 'ack' | 'resolved', now: number): Promise<Alert> {
    const rank = { open: 0, ack: 1, resolved: 2 }
    if (rank[to] <= rank[alert.status]) return alert
    if (to === 'ack') { alert.status = 'ack'; alert.ackAt = now } else {
      alert.status = 'resolved'
      alert.resolvedAt = now
      // The next storm on this key opens a new alert, from a fresh window.
      for (const [k, a] of this.active) if (a.alert === alert) { this.active.delete(k); this.windows.delete(k) }
    }
    await this.flushNow()
    return alert
  }

  /** Drops alerts last seen before `cutoff` (resolved ones) and keeps the newest {@link MAX_STORED_ALERTS}. */
  prune (cutoff: number): void {
    const before = this.alerts.length
    for (let i = this.alerts.length - 1; i >= 0; i--) {
      const a = this.alerts[i]!
      if (a.status === 'resolved' && a.lastAt < cutoff) this.alerts.splice(i, 1)
    }
    this.trim()
    if (this.alerts.length !== before) this.touch()
  }

  /** Marks the alerts changed by ingest: written within {@link ALERT_FLUSH_MS}, never sooner than that after the last write. */
  touch (): void {
    if (this.timer) return
    const wait = Math.max(0, this.lastWrite + ALERT_FLUSH_MS - this.init.now())
    this.timer = setTimeout(() => { this.timer = null; void this.flushNow().catch((err: unknown) => this.init.log.error({ event: 'reports.alerts.write-failed', err: (err as Error).message }, 'alerts.json write failed')) }, wait)
    this.timer.unref()
  }

  /** Writes alerts.json now (operator changes, close). */
  async flushNow (): Promise<void> {
    if (this.timer) { clearTimeout(this.timer); this.timer = null }
    const write = this.writing.catch(() => {}).then(async () => {
      this.lastWrite = this.init.now()
      this.writes++
      await writeJsonAtomic(alertsFilePath(this.dir), { v: REPORTS_FILE_VERSION, alerts: this.alerts, counters: this.counters }, { mode: 0o600 })
    })
    this.writing = write
    return write
  }

  /** Stops the flush timer (close). */
  stop (): void {
    if (this.timer) { clearTimeout(this.timer); this.timer = null }
  }

  private expire (window: Map<string, { at: number }>, now: number): void {
    for (const [r, e] of window) { if (now - e.at < this.init.windowMs) break; window.delete(r) }
  }

  private trim (): void {
    let over = this.alerts.length - MAX_STORED_ALERTS
    for (let i = 0; over > 0 && i < this.alerts.length;) {
      if (this.alerts[i]!.status === 'resolved') { this.alerts.splice(i, 1); over-- } else i++
    }
    if (over > 0) this.alerts.splice(0, over)
  }
}

function extend (active: Active, reporter: string, category: string, now: number): void {
  const a = active.alert
  a.lastAt = now
  a.categories[category] = (a.categories[category] ?? 0) + 1
  if (active.reporters.has(reporter)) return
  if (active.reporters.size < MAX_TRACKED_REPORTERS) {
    active.reporters.add(reporter)
    a.reporters = Math.max(a.reporters, active.reporters.size)
    if (a.reporters === active.reporters.size) return
  }
  // Past the tracked set (or after a restart emptied it), a new face cannot be told from an old one.
  a.reportersLowerBound = true
}

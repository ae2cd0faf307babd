import { mkdir } from 'node:fs/promises'
import type { ReportRequest } from '@arus/rpc'
import { Counter, Gauge, type Activity, type Logger, type Registry } from '@arus/service'
import { AlertBook, loadAlertsFile, type AlertKey } from './alerts.js'
import { MAX_STORED_REPORTS, NOTE_MAX } from './constants.js'
import type { ReportsSettings } from './env.js'
import { ReportsError } from './errors.js'
import { createLane } from './lane.js'
import { createGlobalBucket, createReporterThrottle } from './limits.js'
import { alertNotification, testNotification } from './message.js'
import { createNotifier } from './notifier.js'
import { reportPseudonym } from '@arus/crypto'
import { changeStatus, newReportId, ReportStore, type StatusChange } from './report-store.js'
import {
  ListAlertsQuery, ListReportsQuery, type Alert, type Report, type ReportsSummary, type TestNotifyReply
} from './schemas.js'
import { summarize } from './summary.js'

/** The fields of a report as the RPC carries them (without `v` and the token). */
export type ReportInput = Omit<ReportRequest, 'v' | 'token'>

/** Who sent a report, as the verified session token says. Used only for the pseudonym, then forgotten. */
export interface Reporter { userId: string; deviceId: string }

/** What ingest answers: the RPC reply, the throttle's refusal, or `identify` found no live session. */
export type IngestResult = { ok: true; collapsed?: true } | { locked: true; retryAfter: number } | { unauthorized: true }

export interface ReportsComponents {
  log: Logger
  /** Where stored reports, alert changes and operator actions are audited (channel and category only). */
  activity: Activity
  /** Registers the reports metrics here when given. */
  metrics?: { registry: Registry; prefix: string }
  now?: () => number
}

export interface ReportsInit {
  /** Directory of reports.json and alerts.json (created on first use; never with retention 0). */
  dir: string
  /** The panel's 32-byte pseudonym salt. */
  salt: Uint8Array
  serviceName: string
  settings: ReportsSettings
}

/** Reports stored per channel of the ingest lane at most; more waiting are shed at once. */
const LANE_MAX = 1000
const HOUR = 3_600_000
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g

export class ReportsService {
  readonly enabled: boolean
  private readonly now: () => number
  private readonly store: ReportStore
  private book: AlertBook | null = null
  private readonly throttle
  private readonly bucket
  private readonly lane = createLane(LANE_MAX)
  private readonly notifier
  private readonly open = new Map<string, string>() // reporter|channel|category → id of its 'new' record
  private readonly count: Record<'stored' | 'collapsed' | 'shed' | 'throttled', (n?: number) => void>
  private timer: NodeJS.Timeout | null = null

  constructor (private readonly c: ReportsComponents, private readonly init: ReportsInit) {
    const s = init.settings
    this.enabled = s.retentionDays > 0
    this.now = c.now ?? Date.now
    this.store = new ReportStore(init.dir, c.log)
    this.throttle = createReporterThrottle(s.maxPerWindow, s.windowSeconds * 1000)
    this.bucket = createGlobalBucket(s.globalPerMinute, this.now())
    const delivered = metric(c, 'reports_notifications_total', 'Alert notification deliveries by target and result', ['target', 'result'])
    this.notifier = createNotifier({ webhookUrl: s.webhookUrl, messenger: s.messenger }, {
      log: c.log,
      retryMs: s.notifyRetryMs,
      onResult: (r) => delivered?.inc({ target: r.target, result: r.ok ? 'ok' : 'failed' })
    })
    const outcomes = metric(c, 'reports_received_total', 'Problem reports by ingest outcome (stored, collapsed, shed, throttled)', ['outcome'])
    this.count = {
      stored: (n = 1) => outcomes?.inc({ outcome: 'stored' }, n),
      collapsed: (n = 1) => outcomes?.inc({ outcome: 'collapsed' }, n),
      shed: (n = 1) => outcomes?.inc({ outcome: 'shed' }, n),
      throttled: (n = 1) => outcomes?.inc({ outcome: 'throttled' }, n)
    }
    if (c.metrics) {
      const book = (): AlertBook | null => this.book
      new Gauge({ name: `${c.metrics.prefix}reports_open_alerts`, help: 'Alerts open or acknowledged', registers: [c.metrics.registry], collect () { this.set(book()?.alerts.filter((a) => a.status !== 'resolved').length ?? 0) } })
      new Gauge({ name: `${c.metrics.prefix}reports_alert_writes`, help: 'Writes of alerts.json since start (ingest writes at most once per 5 s)', registers: [c.metrics.registry], collect () { this.set(book()?.writes ?? 0) } })
      const notifier = this.notifier
      new Gauge({ name: `${c.metrics.prefix}reports_notify_queue`, help: 'Alert notifications waiting (at most 50)', registers: [c.metrics.registry], collect () { this.set(notifier.queued()) } })
    }
  }

  /** Loads the files and starts the hourly retention prune. With retention 0 nothing is touched. */
  async start (): Promise<void> {
    if (!this.enabled) return
    await mkdir(this.init.dir, { recursive: true, mode: 0o700 })
    await this.store.load()
    const loaded = await loadAlertsFile(this.init.dir, this.c.log)
    this.book = new AlertBook(this.init.dir, loaded, { threshold: this.init.settings.alertCount, windowMs: this.init.settings.alertWindowMinutes * 60_000, log: this.c.log, now: this.now })
    for (const r of this.store.reports.values()) if (r.status === 'new') this.open.set(openKey(r.reporter, r.channel, r.category), r.id)
    await this.prune()
    this.timer = setInterval(() => { void this.prune().catch((err: unknown) => this.c.log.error({ event: 'reports.prune-failed', err: (err as Error).message }, 'reports prune failed')) }, HOUR)
    this.timer.unref()
  }

  /**
   * One report, in the spec's layers: per-reporter throttle, correlation (may open an alert
   * and queue its notification), per-channel collapse, the global bucket, then a stored record
   * (written before the answer). The username and device id stop at the pseudonym. `who` may
   * be a function that checks the caller's session and answers null when it is not live: it
   * then runs in the lowest-priority lane as well.
   */
  async ingest (input: ReportInput, who: Reporter | (() => Promise<Reporter | null>)): Promise<IngestResult> {
    const r = await this.lane.run(async () => {
      // Identifying the reporter (the caller's token and liveness checks) runs in the lane too.
      const reporter = typeof who === 'function' ? await who() : who
      return reporter === null ? { result: { unauthorized: true as const } } : this.ingestNow(input, reporter)
    }, null)
    if (r === null) {
      // The lane is full: acknowledged and shed like an empty bucket.
      if (this.book) { this.book.counters.shed++; this.book.touch() }
      this.count.shed()
      return { ok: true }
    }
    // A stored report is answered once it is on disk; the wait is outside the lane, so
    // reports arriving meanwhile share the same write (group commit).
    if (r.written) await r.written
    return r.result
  }

  private ingestNow (input: ReportInput, who: Reporter): { result: IngestResult; written?: Promise<void> } {
    const book = this.book
    if (!book) throw ReportsError.disabled()
    const now = this.now()
    const reporter = reportPseudonym(this.init.salt, who.userId, who.deviceId)
    const retryAfter = this.throttle.hit(reporter, now)
    if (retryAfter > 0) { book.counters.throttled++; this.count.throttled(); book.touch(); return { result: { locked: true, retryAfter } } }
    const key: AlertKey = input.category === 'login' ? { kind: 'login' } : { kind: 'channel', channel: input.channel }
    const seen = book.observe(key, reporter, input.category, now)
    if (seen.opened && seen.alert) this.alertOpened(seen.alert)
    const alert = seen.alert
    if (alert && alert.sampled >= this.init.settings.stormSample) {
      alert.collapsed++
      book.counters.collapsed++
      this.count.collapsed()
      book.touch()
      return { result: { ok: true, collapsed: true } }
    }
    if (!this.bucket.take(now)) {
      if (alert) alert.shedCount++
      book.counters.shed++
      this.count.shed()
      book.touch()
      return { result: { ok: true } }
    }
    this.storeReport(input, reporter, now)
    if (alert) { alert.sampled++; book.touch() }
    this.count.stored()
    this.c.activity.record({ event: 'report.received', channel: input.channel, category: input.category }, 'problem report stored')
    return { result: { ok: true }, written: this.store.flush() }
  }

  private storeReport (input: ReportInput, reporter: string, now: number): void {
    const text = input.text === null ? null : input.text.replace(CONTROL, '')
    const events = input.events.map((e) => ({ ...e, detail: e.detail.replace(CONTROL, ' ') }))
    const k = openKey(reporter, input.channel, input.category)
    const existing = this.store.reports.get(this.open.get(k) ?? '')
    if (existing && existing.status === 'new') {
      // The same viewer again on the same problem: one record, counted.
      this.store.reports.set(existing.id, {
        ...existing, lastAt: now, count: existing.count + 1, text: text ?? existing.text, appVersion: input.appVersion,
        platform: input.platform, peers: input.peers, events
      })
      return
    }
    const report: Report = {
      id: newReportId(now), at: now, lastAt: now, count: 1, reporter, category: input.category, text, channel: input.channel,
      appVersion: input.appVersion, platform: input.platform, peers: input.peers, events,
      status: 'new', ackAt: null, resolvedAt: null, note: null
    }
    this.store.reports.set(report.id, report)
    this.open.set(k, report.id)
    if (this.store.reports.size > MAX_STORED_REPORTS) this.store.evict()
  }

  private alertOpened (alert: Alert): void {
    this.notifier.enqueue(alertNotification(this.init.serviceName, alert))
    this.c.activity.record({ event: 'alert.opened', alert: alert.id, kind: alert.kind, channel: alert.channel ?? 'login', count: alert.reporters }, 'problem alert opened')
  }

  /** GET /api/reports: newest first. */
  async list (query: ListReportsQuery = {}): Promise<{ enabled: boolean; reports: Report[] }> {
    if (!this.enabled) return { enabled: false, reports: [] }
    const q = ListReportsQuery.parse(query)
    await this.store.refresh()
    const out = [...this.store.reports.values()]
      .filter((r) => (q.status === undefined || r.status === q.status) && (q.channel === undefined || r.channel === q.channel) &&
        (q.category === undefined || r.category === q.category) && (q.since === undefined || r.lastAt >= q.since))
      .sort((a, b) => b.lastAt - a.lastAt || b.at - a.at)
    return { enabled: true, reports: out.slice(0, q.limit) }
  }

  async summary (): Promise<ReportsSummary> {
    const retentionDays = this.init.settings.retentionDays
    if (!this.enabled || !this.book) {
      return { ...summarize([], [], { shed: 0, collapsed: 0, throttled: 0 }, { retentionDays, now: this.now() }), enabled: false }
    }
    await this.store.refresh()
    return summarize(this.store.reports.values(), this.book.alerts, this.book.counters, { retentionDays, now: this.now() })
  }

  async ackReport (id: string): Promise<Report> { return this.changeReport(id, { to: 'ack' }) }

  async resolveReport (id: string, note?: string): Promise<Report> {
    const clean = note === undefined ? null : note.replace(CONTROL, ' ').trim().slice(0, NOTE_MAX) || null
    return this.changeReport(id, { to: 'resolved', note: clean })
  }

  private async changeReport (id: string, change: StatusChange): Promise<Report> {
    if (!this.enabled) throw ReportsError.disabled()
    await this.store.refresh()
    const r = this.store.reports.get(id)
    if (!r) throw ReportsError.notFound('report', id)
    const next = changeStatus(r, change, this.now())
    if (next === r) return r
    this.store.reports.set(id, next)
    await this.store.flush()
    this.c.activity.record({ event: `report.${change.to === 'ack' ? 'acked' : 'resolved'}`, channel: r.channel, category: r.category }, `problem report ${change.to === 'ack' ? 'acknowledged' : 'resolved'}`)
    return this.store.reports.get(id) ?? next
  }

  /** GET /api/alerts: newest first. */
  alerts (query: ListAlertsQuery = {}): { enabled: boolean; alerts: Alert[] } {
    if (!this.enabled || !this.book) return { enabled: false, alerts: [] }
    const q = ListAlertsQuery.parse(query)
    return { enabled: true, alerts: this.book.alerts.filter((a) => q.status === undefined || a.status === q.status).slice().reverse().map((a) => ({ ...a, categories: { ...a.categories } })) }
  }

  async setAlert (id: string, to: 'ack' | 'resolved'): Promise<Alert> {
    if (!this.enabled || !this.book) throw ReportsError.disabled()
    const alert = this.book.alerts.find((a) => a.id === id)
    if (!alert) throw ReportsError.notFound('alert', id)
    const before = alert.status
    await this.book.setStatus(alert, to, this.now())
    if (alert.status !== before) this.c.activity.record({ event: `alert.${to === 'ack' ? 'acked' : 'resolved'}`, alert: alert.id, kind: alert.kind, channel: alert.channel ?? 'login' }, `problem alert ${to === 'ack' ? 'acknowledged' : 'resolved'}`)
    return { ...alert, categories: { ...alert.categories } }
  }

  /** Sends a synthetic message through the real targets now and reports per target. */
  async testNotify (): Promise<TestNotifyReply> {
    const results = await this.notifier.deliverNow(testNotification(this.init.serviceName))
    this.c.activity.record({ event: 'reports.test-notify', count: results.filter((r) => r.ok).length }, 'test notification sent')
    return { enabled: this.notifier.targets.length > 0, targets: [...this.notifier.targets], results }
  }

  /** Notifications waiting for delivery. */
  notifyQueue (): number { return this.notifier.queued() }

  /** Alerts.json writes since start (tests, metrics). */
  alertWrites (): number { return this.book?.writes ?? 0 }

  private async prune (): Promise<void> {
    const cutoff = this.now() - this.init.settings.retentionDays * 24 * HOUR
    const dropped = this.store.prune(cutoff)
    for (const [k, id] of this.open) if (!this.store.reports.has(id)) this.open.delete(k)
    this.book?.prune(cutoff)
    this.book?.sweep(this.now())
    if (dropped > 0) {
      await this.store.flush()
      this.c.log.info({ event: 'reports.pruned', count: dropped }, 'old problem reports pruned')
    }
  }

  async close (): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    await this.notifier.close()
    if (!this.book) return
    this.book.stop()
    await this.store.flush().catch(() => {})
    await this.book.flushNow().catch(() => {})
  }
}

function openKey (reporter: string, channel: string, category: string): string {
  return `${reporter}\u0000${channel}\u0000${category}`
}

function metric (c: ReportsComponents, name: string, help: string, labelNames: string[]): Counter | undefined {
  return c.metrics ? new Counter({ name: `${c.metrics.prefix}${name}`, help, labelNames, registers: [c.metrics.registry] }) : undefined
}

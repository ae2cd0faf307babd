import { keyedRecord } from '@arus/service'
import type { Alert, IngestCounters, Report, ReportsSummary } from './schemas.js'

const HOUR = 3_600_000

/** GET /api/reports/summary from the stored reports, the alerts and the counters. */
export function summarize (reports: Iterable<Report>, alerts: Alert[], counters: IngestCounters, init: { retentionDays: number; now: number }): ReportsSummary {
  const thisHour = Math.floor(init.now / HOUR) * HOUR
  const byHour = Array.from({ length: 24 }, (_, i) => ({ at: thisHour - (23 - i) * HOUR, count: 0 }))
  const out: ReportsSummary = {
    enabled: true,
    retentionDays: init.retentionDays,
    total: 0, new: 0, ack: 0, resolved: 0, occurrences: 0,
    openAlerts: alerts.filter((a) => a.status === 'open').length,
    ...counters,
    // Keyed by what viewers report: without a prototype, a channel named `constructor` is counted, not added to a function.
    byChannel: keyedRecord(),
    byCategory: keyedRecord(),
    byHour
  }
  for (const r of reports) {
    out.total++
    out[r.status]++
    out.occurrences += r.count
    out.byChannel[r.channel] = (out.byChannel[r.channel] ?? 0) + r.count
    out.byCategory[r.category] = (out.byCategory[r.category] ?? 0) + r.count
    const slot = 23 - (thisHour - Math.floor(r.at / HOUR) * HOUR) / HOUR
    if (slot >= 0 && slot < 24) byHour[slot]!.count += r.count
  }
  return out
}

import { z } from 'zod'
import { REPORT_CATEGORIES, ReportEvent } from '@arus/rpc'
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT, NOTE_MAX } from './constants.js'

// Records, queries and replies of reports and alerts. Spec: 1-panel.md "Problem report",
// "Alert", "States and transitions" (Report, Alert), "Reports and alerts" endpoints.

export const ReportStatus = z.enum(['new', 'ack', 'resolved'])
export type ReportStatus = z.infer<typeof ReportStatus>
export const AlertStatus = z.enum(['open', 'ack', 'resolved'])
export type AlertStatus = z.infer<typeof AlertStatus>
export const ReportCategorySchema = z.enum(REPORT_CATEGORIES)

/** Report and alert ids: lowercase letters, digits and dashes. */
export const RecordId = z.string().regex(/^[a-z0-9-]{1,40}$/, 'expected a report or alert id')

/** A stored report. `reporter` is the 16-hex pseudonym; no username or device id exists anywhere in it. */
export const Report = z.strictObject({
  id: RecordId,
  at: z.number().int(),
  lastAt: z.number().int(),
  count: z.number().int().min(1),
  reporter: z.string().regex(/^[0-9a-f]{16}$/),
  category: ReportCategorySchema,
  text: z.string().nullable(),
  channel: z.string(),
  appVersion: z.string(),
  platform: z.string(),
  peers: z.number().int().min(0),
  events: z.array(ReportEvent),
  status: ReportStatus,
  ackAt: z.number().int().nullable(),
  resolvedAt: z.number().int().nullable(),
  note: z.string().nullable()
})
export type Report = z.infer<typeof Report>

/** An alert: counts only, never a reporter id. `reporters` is a lower bound when `reportersLowerBound`. */
export const Alert = z.strictObject({
  id: RecordId,
  kind: z.enum(['channel', 'login']),
  /** The channel, or null for a panel-wide login alert. */
  channel: z.string().nullable(),
  categories: z.record(z.string(), z.number().int().min(0)),
  reporters: z.number().int().min(0),
  reportersLowerBound: z.boolean(),
  openedAt: z.number().int(),
  lastAt: z.number().int(),
  status: AlertStatus,
  ackAt: z.number().int().nullable(),
  resolvedAt: z.number().int().nullable(),
  /** Reports of this alert dropped by the panel-wide bucket. */
  shedCount: z.number().int().min(0),
  /** Full records stored for this alert (at most REPORTS_STORM_SAMPLE). */
  sampled: z.number().int().min(0),
  /** Reports counted into this alert without a record. */
  collapsed: z.number().int().min(0)
})
export type Alert = z.infer<typeof Alert>

/** Ingest outcomes counted since the files were created. */
export const IngestCounters = z.strictObject({
  shed: z.number().int().min(0),
  collapsed: z.number().int().min(0),
  throttled: z.number().int().min(0)
})
export type IngestCounters = z.infer<typeof IngestCounters>

const epochOrIso = z.union([
  z.coerce.number().int().min(0),
  z.iso.datetime({ offset: true }).transform((s) => Date.parse(s))
])

/** GET /api/reports query. */
export const ListReportsQuery = z.strictObject({
  status: ReportStatus.optional(),
  channel: z.string().min(1).max(64).optional(),
  category: ReportCategorySchema.optional(),
  /** Reports whose latest occurrence is at or after this (epoch ms or ISO 8601). */
  since: epochOrIso.optional(),
  limit: z.coerce.number().int().min(1).max(LIST_MAX_LIMIT).default(LIST_DEFAULT_LIMIT)
})
export type ListReportsQuery = z.input<typeof ListReportsQuery>

/** GET /api/alerts query. */
export const ListAlertsQuery = z.strictObject({ status: AlertStatus.optional() })
export type ListAlertsQuery = z.input<typeof ListAlertsQuery>

/** :id of the report and alert routes. */
export const RecordIdParams = z.strictObject({ id: RecordId })

/** POST /api/reports/:id/resolve body. */
export const ResolveReportBody = z.strictObject({ note: z.string().max(NOTE_MAX * 4).optional() })

export const ReportsList = z.object({ enabled: z.boolean(), reports: z.array(Report) })
export const AlertsList = z.object({ enabled: z.boolean(), alerts: z.array(Alert) })
export const ReportReplyView = z.object({ report: Report })
export const AlertReplyView = z.object({ alert: Alert })

/** GET /api/reports/summary. */
export const ReportsSummary = z.object({
  enabled: z.boolean(),
  retentionDays: z.number().int(),
  /** Stored records, by status. */
  total: z.number().int(),
  new: z.number().int(),
  ack: z.number().int(),
  resolved: z.number().int(),
  /** Occurrences the stored records hold (a repeat from the same reporter bumps a record's count). */
  occurrences: z.number().int(),
  openAlerts: z.number().int(),
  shed: z.number().int(),
  collapsed: z.number().int(),
  throttled: z.number().int(),
  byChannel: z.record(z.string(), z.number().int()),
  byCategory: z.record(z.string(), z.number().int()),
  /** The last 24 hours, oldest first: occurrences by the hour of a record's first report. */
  byHour: z.array(z.object({ at: z.number().int(), count: z.number().int() })).length(24)
})
export type ReportsSummary = z.infer<typeof ReportsSummary>

/** One target's delivery result. */
export const DeliveryResult = z.object({
  target: z.enum(['webhook', 'messenger']),
  ok: z.boolean(),
  status: z.number().int().optional(),
  attempts: z.number().int(),
  error: z.string().optional()
})
export type DeliveryResult = z.infer<typeof DeliveryResult>

/** POST /api/reports/test-notify. */
export const TestNotifyReply = z.object({
  enabled: z.boolean(),
  targets: z.array(z.enum(['webhook', 'messenger'])),
  results: z.array(DeliveryResult)
})
export type TestNotifyReply = z.infer<typeof TestNotifyReply>

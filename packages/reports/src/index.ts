/**
 * @packageDocumentation
 * `@arus/reports` — pseudonymous viewer problem reports for the panel (spec 1-panel.md
 * "Problem report", "Alert", "Events", "Limits", "Storm behavior"): the ingest layers
 * (per-reporter throttle, correlation into alerts, per-channel collapse, the panel-wide
 * bucket), reports stored outside the catalog with atomic group-committed writes that a CLI
 * beside the panel can change too, alerts flushed at most once per 5 s, fail-dark
 * notifications to a webhook and a messenger bot, and the HTTP routes and CLI commands.
 *
 * Usernames and device ids never get past the pseudonym: not to disk, the API, the activity
 * ring, notifications or logs.
 */
import { ReportsService, type ReportsComponents, type ReportsInit } from './reports.js'

export type { IngestResult, Reporter, ReportInput, ReportsComponents, ReportsInit } from './reports.js'
export { reportsEnv, reportsSettings, isDeliverable } from './env.js'
export type { ReportsEnv, ReportsSettings } from './env.js'
export { REPORTS_ERROR_CODES, ReportsError } from './errors.js'
export type { ReportsErrorCode } from './errors.js'
export {
  Alert, AlertsList, AlertReplyView, AlertStatus, DeliveryResult, IngestCounters, ListAlertsQuery, ListReportsQuery, RecordId,
  RecordIdParams, Report, ReportReplyView, ReportsList, ReportsSummary, ReportStatus, ResolveReportBody, TestNotifyReply
} from './schemas.js'
export {
  ALERT_FLUSH_MS, MAX_STORED_REPORTS, MAX_TRACKED_REPORTERS, NOTE_MAX, NOTIFY_ATTEMPTS, NOTIFY_QUEUE_MAX,
  NOTIFY_RESPONSE_CAP_BYTES, NOTIFY_TIMEOUT_MS
} from './constants.js'
/** The reporter pseudonym: @arus/crypto's `reportPseudonym` (the one implementation), under this package's name. */
export { reportPseudonym as pseudonym } from '@arus/crypto'
export { reportRoutes } from './routes.js'
export { reportCommands } from './commands.js'
export type { ReportCommandsInit } from './commands.js'

/** The panel's reports: see {@link ReportsService} for each operation. */
export type Reports = ReportsService

/** Builds the reports service; call `start()` before use and `close()` at shutdown. */
export function createReports (components: ReportsComponents, init: ReportsInit): Reports {
  return new ReportsService(components, init)
}

/**
 * Fixed limits of reports, alerts and notifications. Spec: 1-panel.md "Limits", "Events",
 * "Storm behavior"; the REPORTS_* knobs are in env.ts.
 */

/** Version of reports.json and alerts.json. */
export const REPORTS_FILE_VERSION = 1

/** Stored reports are capped at 5000; the oldest resolved are evicted first (spec 1 "Limits"). */
export const MAX_STORED_REPORTS = 5000

/** Alerts kept on disk (Arus): past this the oldest resolved alerts go first. */
export const MAX_STORED_ALERTS = 1000

/** Ingest-driven alert writes happen at most once per 5 s (spec 1 "Limits": alert flush). */
export const ALERT_FLUSH_MS = 5000

/** Distinct reporters tracked per alert; past this the count is a lower bound shown with >= (spec 1 "Events"). */
export const MAX_TRACKED_REPORTERS = 500

/** Longest operator note on a resolved report (spec 1 leaves the cap value open). */
export const NOTE_MAX = 1000

/** Reporters tracked by the per-reporter throttle at once; the stalest are forgotten first. */
export const MAX_THROTTLED_REPORTERS = 100_000

/** Notification delivery (spec 1 "Events": fail-dark). */
export const NOTIFY_TIMEOUT_MS = 8000
export const NOTIFY_RESPONSE_CAP_BYTES = 64 * 1024
export const NOTIFY_ATTEMPTS = 3
export const NOTIFY_QUEUE_MAX = 50

/** Default list page and its cap for GET /api/reports. */
export const LIST_DEFAULT_LIMIT = 100
export const LIST_MAX_LIMIT = 1000

/** How long a reports-file lock may be waited for, and when a held one counts as abandoned. */
export const LOCK_WAIT_MS = 10_000
export const LOCK_STALE_MS = 30_000

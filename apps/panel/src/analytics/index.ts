/**
 * The panel's aggregate analytics (spec 1 "What the service does" 6, "Analytics"): UTC day
 * rollups with hourly buckets of viewer logins {ok, failed}, sessions, online apps (swarm
 * connections sampled every minute, reduced to min/max/mean/samples) and the catalog's
 * channels per class, plus each day's count of distinct viewers. Counts only, never an
 * identity: usernames reach only a salted hash under a salt that lives for one UTC day
 * (docs/panel.md "Analytics and privacy").
 */
import type { Logger } from '@arus/service'
import { PanelAnalytics } from './analytics.js'
import { DisabledAnalytics } from './disabled.js'
import type { CatalogCounts, HourView } from './rollup.js'

export type { CatalogCounts, HourView } from './rollup.js'
export { DEFAULT_QUERY_DAYS, EXACT_VIEWERS_CAP, SAMPLE_INTERVAL_MS } from './constants.js'

/** Collaborators of {@link createAnalytics}. */
export interface AnalyticsComponents {
  log: Logger
  /** Clock (ms since the epoch); tests move it across hour and day boundaries. */
  now: () => number
  /** Online apps right now: the swarm connection count. */
  onlineApps: () => number
  /** Catalog channels per class, sampled once per hour bucket; omitted: no catalog counts. */
  catalogCounts?: () => Promise<CatalogCounts>
}

/** Options of {@link createAnalytics}. */
export interface AnalyticsInit {
  /** Directory of the day files (DATA_DIR/analytics). Not created while disabled. */
  dir: string
  /** The day salt file in the private dir (DATA_DIR/private/analytics-salt.json). */
  saltFile: string
  /** ANALYTICS_RETENTION_DAYS: UTC days kept, today included; 0 disables analytics. */
  retentionDays: number
  /** Sampling and flush period. Default 60 000 ms; 0 runs no timer (tests call `tick`). */
  intervalMs?: number
  /** Distinct viewers counted exactly per day before the HyperLogLog takes over. Default 50 000. */
  exactCap?: number
}

/** One UTC day of GET /api/analytics. */
export interface AnalyticsDay {
  /** YYYY-MM-DD (UTC). */
  date: string
  /** UTC hour "0"-"23" → its counts; hours without data (the panel was down) are absent. */
  hours: Record<string, HourView>
  /** Distinct viewers with a session that day (today: so far). */
  day: { uniqueViewers: number }
}

/** The reply of GET /api/analytics. */
export interface AnalyticsView {
  enabled: boolean
  retentionDays: number
  /** Oldest first, today last; days without a file are absent. */
  days: AnalyticsDay[]
  /** The in-progress hour (also inside today's `hours`); null while disabled. */
  current: (HourView & { date: string; hour: number }) | null
}

/** What the viewer RPC handlers report: each login outcome and each issued session. */
export interface AnalyticsRecorder {
  loginSucceeded(): void
  loginFailed(): void
  /** The username only enters a salted hash held for the current UTC day. */
  sessionIssued(username: string): void
}

/** What the admin API reads. */
export interface AnalyticsReader {
  /** `days` default 7, capped at the retention. */
  query(init?: { days?: number; signal?: AbortSignal }): Promise<AnalyticsView>
}

export interface Analytics extends AnalyticsRecorder, AnalyticsReader {
  readonly enabled: boolean
  readonly retentionDays: number
  /** Loads today's counts from disk, closes stale days, prunes, starts sampling. Idempotent. */
  ready(opts?: { signal?: AbortSignal }): Promise<void>
  /** One sampling step (what the timer runs): rollover, an online-apps sample, a flush when changed. */
  tick(opts?: { signal?: AbortSignal }): Promise<void>
  /** Writes the in-progress day now. */
  flush(opts?: { signal?: AbortSignal }): Promise<void>
  /** Stops sampling and flushes. Idempotent. */
  close(opts?: { signal?: AbortSignal }): Promise<void>
}

/** Analytics of the panel; with `retentionDays` 0 a disabled one that writes nothing. */
export function createAnalytics (components: AnalyticsComponents, init: AnalyticsInit): Analytics {
  return init.retentionDays > 0 ? new PanelAnalytics(components, init) : new DisabledAnalytics(components, init)
}

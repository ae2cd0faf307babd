import { z } from 'zod'

/**
 * One hour of counts (spec 1 "Analytics"): logins {ok, failed}, sessions, the swarm
 * connection samples and, once per hour, the catalog's channels per class. Counts only.
 */

const Count = z.number().int().min(0)

/** Channels per class as `countChannels` gives them. */
export const CatalogCounts = z.object({ live: Count, redirect: Count, vod: Count })
export type CatalogCounts = z.infer<typeof CatalogCounts>

/** An hour as kept in memory and on disk: onlineApps keeps its sum so the mean survives a reload exactly. */
export const HourRecord = z.object({
  logins: z.object({ ok: Count, failed: Count }),
  sessions: Count,
  onlineApps: z.object({ min: Count.nullable(), max: Count.nullable(), sum: Count, samples: Count }),
  catalog: CatalogCounts.optional()
})
export type HourRecord = z.infer<typeof HourRecord>

/** An hour as the API returns it: onlineApps reduced to min, max, mean (null without samples) and samples. */
export interface HourView {
  logins: { ok: number; failed: number }
  sessions: number
  onlineApps: { min: number | null; max: number | null; mean: number | null; samples: number }
  catalog?: CatalogCounts
}

export function emptyHour (): HourRecord {
  return { logins: { ok: 0, failed: 0 }, sessions: 0, onlineApps: { min: null, max: null, sum: 0, samples: 0 } }
}

/** Folds one connection-count sample into the hour. */
export function addOnlineSample (hour: HourRecord, connections: number): void {
  const o = hour.onlineApps
  const n = Math.max(0, Math.floor(connections))
  o.min = o.min === null ? n : Math.min(o.min, n)
  o.max = o.max === null ? n : Math.max(o.max, n)
  o.sum += n
  o.samples++
}

export function reduceHour (hour: HourRecord): HourView {
  const o = hour.onlineApps
  return {
    logins: { ...hour.logins },
    sessions: hour.sessions,
    // Two decimals: enough for a chart, and stable in JSON.
    onlineApps: { min: o.min, max: o.max, mean: o.samples === 0 ? null : Math.round((o.sum / o.samples) * 100) / 100, samples: o.samples },
    ...(hour.catalog ? { catalog: { ...hour.catalog } } : {})
  }
}

/** The UTC day of `ms` as YYYY-MM-DD. */
export function utcDate (ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/** The UTC hour (0-23) of `ms`. */
export function utcHour (ms: number): number {
  return new Date(ms).getUTCHours()
}

/** The UTC day `n` days before `date` (YYYY-MM-DD). */
export function daysBefore (date: string, n: number): string {
  return utcDate(Date.parse(`${date}T00:00:00Z`) - n * 86_400_000)
}

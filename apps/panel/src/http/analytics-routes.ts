import { z } from 'zod'
import type { FastifyInstance } from '@arus/service'
import type { AnalyticsReader, AnalyticsView } from '../analytics/index.js'
import { panelRoute } from './panel-route.js'

const Count = z.number().int().min(0)
const Channels = z.object({ live: Count, redirect: Count, vod: Count })

const Hour = z.object({
  logins: z.object({ ok: Count, failed: Count }),
  sessions: Count,
  onlineApps: z.object({ min: Count.nullable(), max: Count.nullable(), mean: z.number().nullable(), samples: Count })
    .describe('Swarm connections sampled every minute: min, max, mean (null without a sample), samples'),
  catalog: Channels.optional().describe('Catalog channels per class, sampled once in the hour')
})

export const AnalyticsQuery = z.object({
  days: z.coerce.number().int().min(1).max(3650).optional().describe('UTC days back, today included (default 7, capped at ANALYTICS_RETENTION_DAYS)')
})

export const AnalyticsReply = z.object({
  enabled: z.boolean(),
  retentionDays: Count,
  days: z.array(z.object({
    date: z.string().describe('YYYY-MM-DD (UTC)'),
    hours: z.record(z.string(), Hour).describe('UTC hour "0"-"23" → counts; hours without data are absent'),
    day: z.object({ uniqueViewers: Count.describe('Distinct viewers with a session that day (exact up to 50 000, then estimated)') })
  })).describe('Oldest first, today last (today includes the in-progress hour)'),
  current: Hour.extend({ date: z.string(), hour: z.number().int().min(0).max(23) }).nullable().describe('The in-progress hour; null when disabled')
})

const DISABLED: AnalyticsView = { enabled: false, retentionDays: 0, days: [], current: null }

/** GET /api/analytics (spec 1 "Health, status, monitoring"; counts only). Without `analytics`, disabled. */
export function analyticsRoutes (app: FastifyInstance, analytics: AnalyticsReader | undefined): void {
  panelRoute(app, { method: 'GET', url: '/api/analytics', tag: 'status', summary: 'Aggregate counts per UTC day and hour: logins, sessions, online apps, catalog, unique viewers (?days=N, default 7)', query: AnalyticsQuery, response: AnalyticsReply },
    async ({ query }) => analytics === undefined ? DISABLED : analytics.query(query.days === undefined ? {} : { days: query.days }))
}

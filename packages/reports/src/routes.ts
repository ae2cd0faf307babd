import { route, type FastifyInstance } from '@arus/service'
import type { Reports } from './index.js'
import {
  AlertReplyView, AlertsList, ListAlertsQuery, ListReportsQuery, RecordIdParams, ReportReplyView, ReportsList, ReportsSummary,
  ResolveReportBody, TestNotifyReply
} from './schemas.js'

/**
 * The reports and alerts routes of the panel's admin API (spec 1 "Reports and alerts"). All
 * need an admin token. Answers carry pseudonyms and counts, never a username or device id.
 */
export function reportRoutes (app: FastifyInstance, reports: Reports): void {
  const tag = 'reports'
  route(app, { method: 'GET', url: '/api/reports', auth: true, tag, summary: 'Stored problem reports, newest first (filters: status, channel, category, since, limit)', query: ListReportsQuery, response: ReportsList },
    async ({ query }) => reports.list(query))
  route(app, { method: 'GET', url: '/api/reports/summary', auth: true, tag, summary: 'Report counts by status, channel, category and hour (24 entries), open alerts, shed, collapsed and throttled', response: ReportsSummary },
    async () => reports.summary())
  route(app, { method: 'POST', url: '/api/reports/:id/ack', auth: true, tag, summary: 'Acknowledge a report (new → ack)', params: RecordIdParams, response: ReportReplyView },
    async ({ params }) => ({ report: await reports.ackReport(params.id) }))
  route(app, { method: 'POST', url: '/api/reports/:id/resolve', auth: true, tag, summary: 'Resolve a report with an optional note', params: RecordIdParams, body: ResolveReportBody.optional(), response: ReportReplyView },
    async ({ params, body }) => ({ report: await reports.resolveReport(params.id, body?.note) }))
  route(app, { method: 'POST', url: '/api/reports/test-notify', auth: true, tag, summary: 'Send a synthetic notification through the configured targets and report each result', response: TestNotifyReply },
    async () => reports.testNotify())
  route(app, { method: 'GET', url: '/api/alerts', auth: true, tag, summary: 'Alerts, newest first (filter: status)', query: ListAlertsQuery, response: AlertsList },
    async ({ query }) => reports.alerts(query))
  route(app, { method: 'POST', url: '/api/alerts/:id/ack', auth: true, tag, summary: 'Acknowledge an alert (open → ack)', params: RecordIdParams, response: AlertReplyView },
    async ({ params }) => ({ alert: await reports.setAlert(params.id, 'ack') }))
  route(app, { method: 'POST', url: '/api/alerts/:id/resolve', auth: true, tag, summary: 'Resolve an alert; the next storm on its channel opens a new one', params: RecordIdParams, response: AlertReplyView },
    async ({ params }) => ({ alert: await reports.setAlert(params.id, 'resolved') }))
}

import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { route } from '@arus/service'
import { AnalyticsReply, type Analytics } from '../analytics.js'
import { CapabilitiesReply, type Capabilities } from '../capabilities.js'
import type { ChannelManager } from '../channels/manager.js'
import { IncidentsReply, type IncidentLog } from '../incidents.js'
import { StatusReply } from '../status.js'

/** Status, analytics, capabilities and incidents (spec 2 "Endpoints / Broadcaster"); the admin routes are the kit's. */

export interface ServiceRouteDeps {
  manager: ChannelManager
  analytics: Analytics
  incidents: IncidentLog
  capabilities(refresh: boolean): Promise<Capabilities>
  status(): StatusReply
}

export function serviceRoutes (app: FastifyInstance, d: ServiceRouteDeps): void {
  route(app, { method: 'GET', url: '/api/status', auth: true, tag: 'status', summary: 'Channels, running count, panel configuration and link', response: StatusReply },
    async () => d.status())
  route(app, {
    method: 'GET', url: '/api/analytics', auth: true, tag: 'status', summary: 'Hourly analytics by UTC day (peers, egress bytes, respawns; counts only)',
    query: z.strictObject({ days: z.coerce.number().int().min(1).max(3650).default(7) }),
    response: AnalyticsReply
  }, async ({ query }) => d.analytics.view(query.days))
  route(app, {
    method: 'GET', url: '/api/capabilities', auth: true, tag: 'status', summary: 'Input protocols and encoders as {listed, verified, error?} (probed once; ?refresh=1 probes again)',
    query: z.strictObject({ refresh: z.enum(['0', '1']).optional() }),
    response: CapabilitiesReply
  }, async ({ query }) => d.capabilities(query.refresh === '1'))
  route(app, {
    method: 'GET', url: '/api/incidents', auth: true, tag: 'status', summary: 'Correlated incident log, newest first',
    query: z.strictObject({ limit: z.coerce.number().int().min(1).max(500).default(100) }),
    response: IncidentsReply
  }, async ({ query }) => ({ incidents: d.incidents.list(query.limit), ...d.incidents.counts() }))
}

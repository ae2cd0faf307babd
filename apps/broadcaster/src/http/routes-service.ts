import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { route } from '@arus/service'
import type { Analytics } from '../analytics.js'
import type { Capabilities } from '../capabilities.js'
import type { ChannelManager } from '../channels/manager.js'
import type { IncidentLog } from '../incidents.js'
import { addAdmin, listAdmins, removeAdmin, setAdminPassword, type AdminCtx } from '../ops/admins.js'

/** Status, analytics, capabilities, incidents and the control admins (spec 2 "Endpoints / Broadcaster"). */

export interface ServiceRouteDeps {
  manager: ChannelManager
  analytics: Analytics
  incidents: IncidentLog
  capabilities(refresh: boolean): Promise<Capabilities>
  admins: AdminCtx
  status(): Record<string, unknown>
}

const AdminParams = z.strictObject({ name: z.string().min(1).max(64) })
const PasswordBody = z.strictObject({ password: z.string().min(1).max(1024) })
const AddAdminBody = z.strictObject({ name: z.string().min(1).max(64), password: z.string().min(1).max(1024) })

export function serviceRoutes (app: FastifyInstance, d: ServiceRouteDeps): void {
  route(app, { method: 'GET', url: '/api/status', auth: true, tag: 'status', summary: 'Channels, running count, panel configuration and link' },
    async () => d.status())
  route(app, {
    method: 'GET', url: '/api/analytics', auth: true, tag: 'status', summary: 'Hourly analytics by UTC day (peers, egress bytes, respawns; counts only)',
    query: z.strictObject({ days: z.coerce.number().int().min(1).max(3650).default(7) })
  }, async ({ query }) => d.analytics.view(query.days))
  route(app, {
    method: 'GET', url: '/api/capabilities', auth: true, tag: 'status', summary: 'Input protocols and encoders as {listed, verified, error?} (probed once; ?refresh=1 probes again)',
    query: z.strictObject({ refresh: z.enum(['0', '1']).optional() })
  }, async ({ query }) => d.capabilities(query.refresh === '1'))
  route(app, {
    method: 'GET', url: '/api/incidents', auth: true, tag: 'status', summary: 'Correlated incident log, newest first',
    query: z.strictObject({ limit: z.coerce.number().int().min(1).max(500).default(100) })
  }, async ({ query }) => ({ incidents: d.incidents.list(query.limit), ...d.incidents.counts() }))

  const tag = 'admins'
  route(app, { method: 'GET', url: '/api/admins', auth: true, tag, summary: 'Control admins' },
    async () => listAdmins(d.admins))
  route(app, { method: 'POST', url: '/api/admins', auth: true, tag, status: 201, summary: 'Add a control admin', body: AddAdminBody },
    async ({ body }) => addAdmin(d.admins, body))
  route(app, { method: 'DELETE', url: '/api/admins/:name', auth: true, tag, summary: 'Remove a control admin (ends its sessions)', params: AdminParams },
    async ({ params }) => { await removeAdmin(d.admins, params.name) })
  route(app, { method: 'POST', url: '/api/admins/:name/password', auth: true, tag, summary: "Rotate an admin's password (revokes that admin's sessions)", params: AdminParams, body: PasswordBody },
    async ({ params, body }) => setAdminPassword(d.admins, params.name, body.password))
}

import type { FastifyInstance } from 'fastify'
import { route } from '../http/routes.js'
import { AddAdminInput, AdminList, AdminNameParams, AdminView, DeletedReply, SetAdminPasswordInput, type AdminRegistry } from './admins.js'

/**
 * The admin routes of every daemon (spec 1 "Admins", spec 2 "GET, POST /api/admins; ..."),
 * mounted by `buildControlServer` when it is given an admin registry.
 */
export function adminRoutes (app: FastifyInstance, admins: AdminRegistry): void {
  const tag = 'admins'
  route(app, { method: 'GET', url: '/api/admins', auth: true, tag, summary: 'Admin accounts', response: AdminList },
    async () => ({ admins: await admins.list() }))
  route(app, { method: 'POST', url: '/api/admins', auth: true, tag, status: 201, summary: 'Add an admin account', body: AddAdminInput, response: AdminView },
    async ({ body }) => admins.add(body))
  route(app, { method: 'DELETE', url: '/api/admins/:name', auth: true, tag, summary: 'Remove an admin account (its sessions end; a config snapshot is taken first)', params: AdminNameParams, response: DeletedReply },
    async ({ params }) => { await admins.remove(params.name); return { deleted: params.name } })
  route(app, { method: 'POST', url: '/api/admins/:name/password', auth: true, tag, summary: "Rotate an admin's password; bumps tokenVersion, ending that admin's sessions (rotating one's own signs one out)", params: AdminNameParams, body: SetAdminPasswordInput, response: AdminView },
    async ({ params, body }) => admins.setPassword(params.name, body.password))
}

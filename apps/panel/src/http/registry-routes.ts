import type { FastifyInstance } from '@arus/service'
import type { PanelContext } from '../context.js'
import { addAdmin, listAdmins, removeAdmin, setAdminPassword } from '../ops/admins.js'
import { addPublisher, listPublishers, removePublisher, setPublisherScopes, setPublisherStatus } from '../ops/publishers.js'
import { panelRoute } from './panel-route.js'
import {
  AddAdminBody, AdminList, AdminView, DeletedReply, EnrollBody, EnrollReply, NameParams, PasswordBody,
  PublisherList, PublisherStatusBody, PublisherView, ScopesBody
} from './schemas.js'

/** Admin accounts and publisher enrollments (spec 1 "Admins", "Publishers" routes). */
export function registryRoutes (app: FastifyInstance, ctx: PanelContext): void {
  let tag = 'admins'
  panelRoute(app, { method: 'GET', url: '/api/admins', tag, summary: 'Admin accounts', response: AdminList },
    async () => ({ admins: await listAdmins(ctx) }))
  panelRoute(app, { method: 'POST', url: '/api/admins', tag, summary: 'Add an admin account', body: AddAdminBody, response: AdminView, status: 201 },
    async ({ body }) => addAdmin(ctx, body))
  panelRoute(app, { method: 'DELETE', url: '/api/admins/:name', tag, summary: 'Remove an admin account (its sessions end)', params: NameParams, response: DeletedReply },
    async ({ params }) => { await removeAdmin(ctx, params.name); return { deleted: params.name } })
  panelRoute(app, { method: 'POST', url: '/api/admins/:name/password', tag, summary: "Rotate an admin's password; bumps tokenVersion, ending its sessions", params: NameParams, body: PasswordBody, response: AdminView },
    async ({ params, body }) => setAdminPassword(ctx, params.name, body.password))

  tag = 'publishers'
  panelRoute(app, { method: 'GET', url: '/api/publishers', tag, summary: 'Enrolled publishers', response: PublisherList },
    async () => ({ publishers: await listPublishers(ctx) }))
  panelRoute(app, { method: 'POST', url: '/api/publishers', tag, summary: 'Enroll a publishing site; returns its secretKey once', body: EnrollBody, response: EnrollReply, status: 201 },
    async ({ body }) => addPublisher(ctx, body))
  panelRoute(app, { method: 'DELETE', url: '/api/publishers/:name', tag, summary: 'Hard-delete an enrollment', params: NameParams, response: DeletedReply },
    async ({ params }) => { await removePublisher(ctx, params.name); return { deleted: params.name } })
  panelRoute(app, { method: 'POST', url: '/api/publishers/:name/status', tag, summary: "Set status 'active' or 'revoked'", params: NameParams, body: PublisherStatusBody, response: PublisherView },
    async ({ params, body }) => setPublisherStatus(ctx, params.name, body.status))
  panelRoute(app, { method: 'POST', url: '/api/publishers/:name/scopes', tag, summary: "Replace the scope globs; applies from the site's next register", params: NameParams, body: ScopesBody, response: PublisherView },
    async ({ params, body }) => setPublisherScopes(ctx, params.name, body.scopes))
}

import type { FastifyInstance } from '@arus/service'
import type { PanelContext } from '../context.js'
import {
  addPublisher, EnrollBody, EnrollReply, listPublishers, PublisherList, PublisherStatusBody, PublisherView, removePublisher, ScopesBody,
  setPublisherScopes, setPublisherStatus
} from '../ops/publishers.js'
import { panelRoute } from './panel-route.js'
import { DeletedReply, NameParams } from './schemas.js'

/** Publisher enrollments (spec 1 "Publishers" routes); the admin routes are the kit's. */
export function registryRoutes (app: FastifyInstance, ctx: PanelContext): void {
  const tag = 'publishers'
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

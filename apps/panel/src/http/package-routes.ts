import type { FastifyInstance } from '@arus/service'
import type { PanelContext } from '../context.js'
import {
  AddPackageBody, addPackage, getPackage, listPackages, PackageList, PackageView, PatchPackageBody, removePackage, setPackage
} from '../ops/packages.js'
import { panelRoute } from './panel-route.js'
import { DeletedReply, NameParams } from './schemas.js'

/** Channel packages (spec 1 "Packages" routes). Every handler is one ops/ call. */
export function packageRoutes (app: FastifyInstance, ctx: PanelContext): void {
  const tag = 'packages'
  panelRoute(app, { method: 'GET', url: '/api/packages', tag, summary: 'Packages with their resolved channels and holder counts', response: PackageList },
    async () => ({ packages: await listPackages(ctx) }))
  panelRoute(app, { method: 'POST', url: '/api/packages', tag, summary: 'Add a package {name, label?, members?, default?}', body: AddPackageBody, response: PackageView, status: 201 },
    async ({ body }) => addPackage(ctx, body))
  panelRoute(app, { method: 'GET', url: '/api/packages/:name', tag, summary: 'A package with the ids its members resolve to now', params: NameParams, response: PackageView },
    async ({ params }) => getPackage(ctx, params.name))
  panelRoute(app, { method: 'PATCH', url: '/api/packages/:name', tag, summary: 'Edit label, members or default; a member edit reaches every holder at once', params: NameParams, body: PatchPackageBody, response: PackageView },
    async ({ params, body }) => setPackage(ctx, params.name, body))
  panelRoute(app, { method: 'DELETE', url: '/api/packages/:name', tag, summary: 'Remove a package (config snapshot first); strips it from users, removing only the grants it alone covered', params: NameParams, response: DeletedReply },
    async ({ params }) => { await removePackage(ctx, params.name); return { deleted: params.name } })
}

import type { z } from 'zod'
import { requestAdmin, route, type FastifyInstance, type RouteHandler, type RouteSpec } from '@arus/service'
import { withActor } from '../activity.js'

type Schema = z.ZodType | undefined

/**
 * `route` from the kit, with every handler run as the authenticated admin, so the activity
 * entries the operations record name who did it. Panel routes are authenticated unless said.
 */
export function panelRoute<B extends Schema = undefined, Q extends Schema = undefined, P extends Schema = undefined, R extends Schema = undefined> (
  app: FastifyInstance,
  spec: Omit<RouteSpec<B, Q, P, R>, 'auth'> & { auth?: boolean },
  handler: RouteHandler<B, Q, P, R>
): void {
  route(app, { ...spec, auth: spec.auth ?? true }, (input, req, reply) => withActor(requestAdmin(req)?.name, () => handler(input, req, reply)))
}

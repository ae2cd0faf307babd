import type { z } from 'zod'
import { route, type FastifyInstance, type RouteHandler, type RouteSpec } from '@arus/service'

type Schema = z.ZodType | undefined

/** `route` from the kit; panel routes are authenticated unless said. */
export function panelRoute<B extends Schema = undefined, Q extends Schema = undefined, P extends Schema = undefined, R extends Schema = undefined> (
  app: FastifyInstance,
  spec: Omit<RouteSpec<B, Q, P, R>, 'auth'> & { auth?: boolean },
  handler: RouteHandler<B, Q, P, R>
): void {
  route(app, { ...spec, auth: spec.auth ?? true }, handler)
}

import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'

/**
 * A daemon's dashboard: its own directory at `/`, the kit's shell at `/kit/` and uPlot's
 * browser builds at `/kit/uplot/`. The files hold no data, so they are plain Fastify routes:
 * outside the auth gate (it gates /api/ and routes declared with `auth: true`) and outside
 * the route table the OpenAPI document is built from (they are not declared with `route`).
 */

/** The daemon's side of the dashboard. */
export interface DashboardInit {
  /** Directory served at `/` (`index.html`, its app.js and styles). */
  dir: string
}

/** The kit's shell (`shell.js`, `shell.css`): `packages/service/ui`, seen from src/http and dist/http alike. */
const KIT_UI_DIR = fileURLToPath(new URL('../../ui/', import.meta.url))

/** uPlot's `dist/`, wherever Node resolves the dependency from this package. */
function uplotDistDir (): string {
  return join(dirname(createRequire(import.meta.url).resolve('uplot/package.json')), 'dist')
}

/** Serves the dashboard on `app` (before `ready`/`listen`). */
export function mountDashboard (app: FastifyInstance, init: DashboardInit): void {
  // The kit's directories get one route per file found at start-up (no wildcard): nothing else
  // under /kit/ is routed to them. @fastify/static decorates the reply once, on the first registration.
  const common = { index: false as const, wildcard: false, cacheControl: false, decorateReply: false }
  void app.register(fastifyStatic, { root: init.dir, prefix: '/', index: ['index.html'], cacheControl: false })
  void app.register(fastifyStatic, { ...common, root: KIT_UI_DIR, prefix: '/kit/' })
  void app.register(fastifyStatic, { ...common, root: uplotDistDir(), prefix: '/kit/uplot/' })
}

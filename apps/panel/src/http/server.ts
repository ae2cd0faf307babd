import { fileURLToPath } from 'node:url'
import { CatalogError } from '@arus/catalog'
import { configRoutes } from '@arus/config-snapshots'
import { reportRoutes, type Reports } from '@arus/reports'
import {
  ArusError, buildControlServer, createVerifyWorker, listenControlServer, type ControlSettings, type FastifyInstance, type Logger, type VerifyWorker
} from '@arus/service'
import type { AnalyticsReader } from '../analytics/index.js'
import type { PanelContext } from '../context.js'
import type { PanelMetrics } from '../metrics.js'
import { METRICS_PREFIX } from '../metrics.js'
import { analyticsRoutes } from './analytics-routes.js'
import { categoryRoutes } from './category-routes.js'
import { escrowRoutes } from './escrow-routes.js'
import { packageRoutes } from './package-routes.js'
import { vodConfigRoutes } from './vod-config-routes.js'
import { sourceRoutes } from './source-routes.js'
import { registryRoutes } from './registry-routes.js'
import { statusRoutes, type StatusSources } from './status-routes.js'
import { streamRoutes } from './stream-routes.js'
import { userRoutes } from './user-routes.js'

/** Admin HTTP settings from the env's ADMIN_* section (the kit's controlSettings). */
export type AdminHttpSettings = Pick<ControlSettings, 'sessionTtlMs' | 'verifyTimeoutMs' | 'trustProxy'>

/** Collaborators of {@link buildAdminServer}. */
export interface AdminServerDeps extends StatusSources {
  ctx: PanelContext
  metrics: PanelMetrics
  /** Aggregate analytics for GET /api/analytics; omitted: the route answers `enabled: false`. */
  analytics?: AnalyticsReader
  /** Problem reports and alerts (their routes answer `enabled: false` when reports are disabled). */
  reports: Reports
  settings: AdminHttpSettings
  /** A verify worker to use (tests count verifications), not closed with the server; default: one made here, shared by the login and the escrow route. */
  verifier?: VerifyWorker
  /** Called after a source is added, edited or removed (the scheduler re-reads the registry). */
  onSourcesChanged?: () => void
  /** Clock for tokens and lockout (tests). */
  now?: () => number
}

/** HTTP status of the catalog's codes when an operation lets one through. */
const CATALOG_STATUS: Partial<Record<string, number>> = {
  CATALOG_INVALID_RECORD: 400,
  CATALOG_INVALID_KEY: 400,
  CATALOG_INVALID_STREAM_ID: 400,
  CATALOG_INVALID_ARGUMENT: 400,
  CATALOG_RECORD_TOO_LARGE: 400
}

/** Maps errors that are not ArusErrors: catalog refusals of a bad record are 400 with their own code. */
export function mapPanelError (err: unknown): ArusError | undefined {
  if (err instanceof CatalogError) {
    const status = CATALOG_STATUS[err.code]
    return status === undefined ? undefined : new ArusError(err.code, err.message, { status })
  }
  const code = (err as { code?: unknown; name?: unknown }).code
  if ((err as { name?: unknown }).name === 'CryptoError' && typeof code === 'string' && /^CRYPTO_BAD_/.test(code)) {
    return new ArusError(code, (err as Error).message, { status: 400 })
  }
  return undefined
}

/** The dashboard (apps/panel/ui, on the kit's shell), served at /; the same path from src/http and dist/http. */
export const UI_DIR = fileURLToPath(new URL('../../ui/', import.meta.url))

/** The panel's admin API and dashboard, not listening (STYLE 3: buildAdminServer). */
export function buildAdminServer (deps: AdminServerDeps): FastifyInstance {
  const { ctx } = deps
  // One verify worker for the login and the escrow route's password re-check: verifications
  // run one at a time, off the main loop (spec 1 "Authentication" 3, 5).
  const verifier = deps.verifier ?? createVerifyWorker({ timeoutMs: deps.settings.verifyTimeoutMs, decoyCost: ctx.admins.argon })
  const app = buildControlServer({
    log: ctx.log,
    info: { title: 'arus-panel admin API', version: '1', description: 'See docs/panel-api.md' },
    metrics: deps.metrics.registry,
    metricsPrefix: METRICS_PREFIX,
    health: () => ({ swarmConnections: deps.swarm?.connections.size ?? 0 }),
    startedAt: deps.startedAt,
    dashboard: { dir: UI_DIR },
    mapError: mapPanelError,
    trustProxy: deps.settings.trustProxy,
    admins: ctx.admins,
    auth: {
      // Admin tokens are panel-signed (spec 1 "Authentication" 1) and carry typ 'admin'.
      keys: { publicKey: ctx.identity.publicKey, secretKey: ctx.identity.secretKey },
      sessionTtlMs: deps.settings.sessionTtlMs,
      lockout: { threshold: ctx.settings.lockoutThreshold, windowSeconds: ctx.settings.lockoutSeconds },
      verifier,
      ...(deps.now !== undefined ? { now: deps.now } : {})
    }
  })
  if (deps.verifier === undefined) app.addHook('onClose', async () => { await verifier.close() })
  statusRoutes(app, ctx, deps)
  analyticsRoutes(app, deps.analytics)
  userRoutes(app, ctx)
  streamRoutes(app, ctx)
  categoryRoutes(app, ctx)
  packageRoutes(app, ctx)
  vodConfigRoutes(app, ctx)
  sourceRoutes(app, ctx, deps.onSourcesChanged)
  registryRoutes(app, ctx)
  configRoutes(app, ctx.snapshots)
  reportRoutes(app, deps.reports)
  // Only with ESCROW_EXPORT=1; otherwise the path is an unknown route (spec 1 "Errors").
  if (ctx.settings.escrowExport) escrowRoutes(app, ctx, verifier)
  return app
}

/** A listening admin server. */
export interface RunningAdminServer { app: FastifyInstance; url: string; close(): Promise<void> }

/** Builds and listens on ADMIN_HOST:ADMIN_PORT (loopback only); logs `admin.listening` with the URL. */
export async function startAdminServer (deps: Omit<AdminServerDeps, 'settings'>, control: ControlSettings, log: Logger): Promise<RunningAdminServer> {
  const app = buildAdminServer({ ...deps, settings: control })
  const url = await listenControlServer(app, { host: control.host, port: control.port })
  log.info({ event: 'admin.listening', url }, 'admin API listening')
  return { app, url, async close () { await app.close() } }
}

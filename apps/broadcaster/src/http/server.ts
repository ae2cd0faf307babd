import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { configRoutes, type ConfigSnapshots } from '@arus/config-snapshots'
import { buildControlServer, type AdminRegistry, type ControlSettings, type Logger, type Registry, type TokenKeys, type VerifyWorker } from '@arus/service'
import { channelRoutes } from './routes-channels.js'
import { serviceRoutes, type ServiceRouteDeps } from './routes-service.js'

/**
 * The control API and UI (spec 2 "Broadcaster control API and UI", 127.0.0.1:3310) on the
 * shared daemon kit: /healthz and /metrics before the auth gate, POST /api/login with the
 * single-flight verify worker and lockout, then every broadcaster route behind the gate.
 * Built without listening (tests use `inject`).
 */

/** The plain HTML/JS dashboard on the kit's shell, served at / (a client of this same API). */
export const UI_DIR = fileURLToPath(new URL('../../ui/', import.meta.url))

export interface BroadcasterServerDeps extends ServiceRouteDeps {
  log: Logger
  metrics: Registry
  keys: TokenKeys
  admins: AdminRegistry
  snapshots: ConfigSnapshots
  health(): Record<string, unknown>
  settings: Pick<ControlSettings, 'sessionTtlMs' | 'lockout' | 'verifyTimeoutMs' | 'trustProxy'>
  startedAt: number
  /** A verify worker to share (tests); the server owns one otherwise. */
  verifier?: VerifyWorker
}

export function buildBroadcasterServer (d: BroadcasterServerDeps): FastifyInstance {
  const app = buildControlServer({
    log: d.log,
    info: { title: 'Arus broadcaster control API', version: '1' },
    metrics: d.metrics,
    metricsPrefix: 'arus_broadcaster_',
    health: d.health,
    startedAt: d.startedAt,
    dashboard: { dir: UI_DIR },
    trustProxy: d.settings.trustProxy,
    admins: d.admins,
    auth: {
      keys: d.keys,
      sessionTtlMs: d.settings.sessionTtlMs,
      lockout: d.settings.lockout,
      verifyTimeoutMs: d.settings.verifyTimeoutMs,
      ...(d.verifier ? { verifier: d.verifier } : {})
    }
  })
  channelRoutes(app, d.manager, d.snapshots)
  configRoutes(app, d.snapshots)
  serviceRoutes(app, d)
  return app
}

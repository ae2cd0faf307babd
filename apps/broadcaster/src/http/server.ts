import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import type { ArgonCost } from '@arus/crypto'
import { buildControlServer, type Logger, type Registry, type TokenKeys, type VerifyWorker } from '@arus/service'
import { adminTokenVersion, adminVerifierInput, type AdminCtx } from '../ops/admins.js'
import { channelRoutes } from './routes-channels.js'
import { serviceRoutes, type ServiceRouteDeps } from './routes-service.js'

/**
 * The control API and UI (spec 2 "Broadcaster control API and UI", 127.0.0.1:3310) on the
 * shared daemon kit: /healthz and /metrics before the auth gate, POST /api/login with the
 * single-flight verify worker and lockout, then every broadcaster route behind the gate.
 * Built without listening (tests use `inject`).
 */

/** The plain HTML/JS dashboard, served at / (a client of this same API). */
export const UI_DIR = fileURLToPath(new URL('../../ui/', import.meta.url))

export interface ControlServerSettings {
  sessionTtlMs: number
  lockout: { threshold: number; windowSeconds: number }
  verifyTimeoutMs: number
  /** Cost of the decoy verification for unknown names (the admins' cost, so timing matches). */
  decoyCost: ArgonCost
}

export interface BroadcasterServerDeps extends ServiceRouteDeps {
  log: Logger
  metrics: Registry
  keys: TokenKeys
  admins: AdminCtx
  health(): Record<string, unknown>
  settings: ControlServerSettings
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
    staticDir: UI_DIR,
    auth: {
      keys: d.keys,
      sessionTtlMs: d.settings.sessionTtlMs,
      currentTokenVersion: (name) => adminTokenVersion(d.admins, name),
      verifierInput: (name, password) => adminVerifierInput(d.admins, name, password),
      lockout: d.settings.lockout,
      verifyTimeoutMs: d.settings.verifyTimeoutMs,
      decoyCost: d.settings.decoyCost,
      ...(d.verifier ? { verifier: d.verifier } : {})
    }
  })
  channelRoutes(app, d.manager)
  serviceRoutes(app, d)
  return app
}

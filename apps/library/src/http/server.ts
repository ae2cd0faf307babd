import { fileURLToPath } from 'node:url'
import { configRoutes, type ConfigSnapshots } from '@arus/config-snapshots'
import { buildControlServer, type AdminRegistry, type ControlSettings, type FastifyInstance, type Logger, type Registry, type TokenKeys, type VerifyWorker } from '@arus/service'
import type { Library } from '../titles/library.js'
import type { StatusSource } from '../status.js'
import { titleRoutes } from './routes.js'

/** The dashboard (apps/library/ui, on the kit's shell), served at /. */
export const UI_DIR = fileURLToPath(new URL('../../ui/', import.meta.url))

export interface LibraryServerDeps {
  log: Logger
  library: Library
  metrics: Registry
  keys: TokenKeys
  admins: AdminRegistry
  snapshots: ConfigSnapshots
  status: StatusSource
  health(): Record<string, unknown>
  settings: Pick<ControlSettings, 'sessionTtlMs' | 'lockout' | 'verifyTimeoutMs' | 'trustProxy'>
  startedAt: number
  verifier?: VerifyWorker
}

/** The control API and UI (spec 2 "Library control API and UI", 127.0.0.1:3320), not listening. */
export function buildLibraryServer (d: LibraryServerDeps): FastifyInstance {
  const app = buildControlServer({
    log: d.log,
    info: { title: 'Arus library control API', version: '1', description: 'See docs/library.md' },
    metrics: d.metrics,
    metricsPrefix: 'arus_library_',
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
  titleRoutes(app, d.library, d.status)
  configRoutes(app, d.snapshots)
  return app
}

import { createLogger, createMetricsRegistry, referenceStub, readRouteTable, type DaemonReference } from '@arus/service'
import { buildProgram } from './cli.js'
import { libraryEnvSchema } from './config.js'
import { LIBRARY_ERROR_CODES } from './errors.js'
import { buildLibraryServer, type LibraryServerDeps } from './http/server.js'

/** What the kit's docs generator reads of the library (docs/library.md, .env.example). */
export const libraryReference: DaemonReference = {
  bin: 'arus-library',
  envSchema: libraryEnvSchema,
  program: buildProgram,
  async routes () {
    const app = buildLibraryServer(referenceStub<LibraryServerDeps>({
      log: createLogger({ name: 'reference', level: 'silent' }),
      metrics: createMetricsRegistry({ defaultMetrics: false }),
      keys: { publicKey: new Uint8Array(32), secretKey: new Uint8Array(64) },
      settings: { sessionTtlMs: 1, lockout: { threshold: 1, windowSeconds: 1 }, verifyTimeoutMs: 1000, trustProxy: false },
      admins: referenceStub({ argon: { opslimit: 1, memlimit: 8192 } }),
      startedAt: 0
    }))
    return readRouteTable(app)
  },
  errors: LIBRARY_ERROR_CODES,
  pages: [{ path: 'docs/library.md', sections: ['env', 'cli', 'routes', 'errors'] }],
  envExample: {
    path: 'apps/library/.env.example',
    intro: 'arus-library environment (docs/library.md has the full table).\nCopy to .env and fill in; an empty value counts as unset. Commented lines show the default.'
  }
}

import { createLogger, createMetricsRegistry, referenceStub, readRouteTable, type DaemonReference } from '@arus/service'
import { buildProgram } from './cli.js'
import { broadcasterEnvSchema } from './config.js'
import { BROADCASTER_ERROR_CODES } from './errors.js'
import { buildBroadcasterServer, type BroadcasterServerDeps } from './http/server.js'

/** What the kit's docs generator reads of the broadcaster (docs/broadcaster.md, .env.example). */
export const broadcasterReference: DaemonReference = {
  bin: 'arus-broadcaster',
  envSchema: broadcasterEnvSchema,
  program: buildProgram,
  async routes () {
    const app = buildBroadcasterServer(referenceStub<BroadcasterServerDeps>({
      log: createLogger({ name: 'reference', level: 'silent' }),
      metrics: createMetricsRegistry({ defaultMetrics: false }),
      keys: { publicKey: new Uint8Array(32), secretKey: new Uint8Array(64) },
      settings: { sessionTtlMs: 1, lockout: { threshold: 1, windowSeconds: 1 }, verifyTimeoutMs: 1000, trustProxy: false },
      admins: referenceStub({ argon: { opslimit: 1, memlimit: 8192 } }),
      startedAt: 0
    }))
    return readRouteTable(app)
  },
  errors: BROADCASTER_ERROR_CODES,
  pages: [{ path: 'docs/broadcaster.md', sections: ['env', 'cli', 'routes', 'errors'] }],
  envExample: {
    path: 'apps/broadcaster/.env.example',
    intro: 'arus-broadcaster environment (docs/broadcaster.md has the full table).\nCopy to .env and fill in; an empty value counts as unset. Commented lines show the default.'
  }
}

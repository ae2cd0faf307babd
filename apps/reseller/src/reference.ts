import { createLogger, createMetricsRegistry, referenceStub, readRouteTable, type DaemonReference } from '@arus/service'
import { buildProgram } from './cli.js'
import { resellerEnvSchema } from './config.js'
import { RESELLER_ERROR_CODES } from './errors.js'
import { buildResellerServer, type ResellerServerDeps } from './http/server.js'

/** What the kit's docs generator reads of the reseller (docs/reseller.md, .env.example). */
export const resellerReference: DaemonReference = {
  bin: 'arus-reseller',
  envSchema: resellerEnvSchema,
  program: buildProgram,
  async routes () {
    const app = buildResellerServer(referenceStub<ResellerServerDeps>({
      log: createLogger({ name: 'reference', level: 'silent' }),
      metrics: createMetricsRegistry({ defaultMetrics: false }),
      keys: { publicKey: new Uint8Array(32), secretKey: new Uint8Array(64) },
      settings: { sessionTtlMs: 1, lockout: { threshold: 1, windowSeconds: 1 }, verifyTimeoutMs: 1000, argon: { opslimit: 1, memlimit: 8192 } },
      trustProxyHeader: undefined,
      allowlist: [],
      startedAt: 0
    }))
    return readRouteTable(app)
  },
  errors: RESELLER_ERROR_CODES,
  pages: [{ path: 'docs/reseller.md', sections: ['env', 'cli', 'routes', 'errors'] }],
  envExample: {
    path: 'apps/reseller/.env.example',
    intro: 'arus-reseller environment (docs/reseller.md has the full table).\nCopy to .env and fill in; an empty value counts as unset. Commented lines show the default.'
  }
}

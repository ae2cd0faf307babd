import { createLogger, referenceStub, readRouteTable, type DaemonReference } from '@arus/service'
import { buildProgram } from './cli.js'
import { panelEnvSchema } from './config.js'
import type { PanelContext } from './context.js'
import { PANEL_ERROR_CODES } from './errors.js'
import { buildAdminServer, type AdminServerDeps } from './http/server.js'
import type { PanelMetrics } from './metrics.js'
import { createPanelMetrics } from './metrics.js'

/** What the kit's docs generator reads of the panel (docs/panel.md, docs/panel-api.md, .env.example). */
export const panelReference: DaemonReference = {
  bin: 'arus-panel',
  envSchema: panelEnvSchema,
  program: buildProgram,
  async routes () {
    const ctx = referenceStub<PanelContext>({
      log: createLogger({ name: 'reference', level: 'silent' }),
      identity: { publicKey: new Uint8Array(32), secretKey: new Uint8Array(64) },
      // escrowExport: the reference documents the escrow route, which exists only with ESCROW_EXPORT=1.
      settings: { lockoutThreshold: 1, lockoutSeconds: 1, escrowExport: true },
      admins: referenceStub({ argon: { opslimit: 1, memlimit: 8192 } })
    })
    const metrics: PanelMetrics = createPanelMetrics()
    return readRouteTable(buildAdminServer({ ctx, metrics, startedAt: 0, swarm: null, settings: { sessionTtlMs: 1, verifyTimeoutMs: 1000, trustProxy: false } } as unknown as AdminServerDeps))
  },
  errors: PANEL_ERROR_CODES,
  pages: [
    { path: 'docs/panel.md', sections: ['env', 'cli'] },
    { path: 'docs/panel-api.md', sections: ['routes'] }
  ],
  envExample: {
    path: 'apps/panel/.env.example',
    intro: 'arus-panel environment (docs/panel.md has the full table).\nCopy to .env and fill in; an empty value counts as unset. Commented lines show the default.'
  }
}

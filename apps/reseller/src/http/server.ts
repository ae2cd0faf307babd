import { fileURLToPath } from 'node:url'
import { configRoutes, type ConfigSnapshots } from '@arus/config-snapshots'
import { buildControlServer, LoginReply, route, type ControlSettings, type FastifyInstance, type Logger, type Registry, type TokenKeys, type VerifyWorker } from '@arus/service'
import { allowlistGate, clientAddressOf } from '../allowlist.js'
import { BrandingReply, type Branding } from '../branding.js'
import { currentTokenVersion, verifierInput } from '../principals/ops.js'
import { Role } from '../principals/model.js'
import { resellerRoutes, type ResellerRouteDeps } from './routes.js'

/** The reseller UI (apps/reseller/ui, on the kit's shell), served at /. */
export const UI_DIR = fileURLToPath(new URL('../../ui/', import.meta.url))

export interface ResellerServerDeps extends ResellerRouteDeps {
  log: Logger
  metrics: Registry
  keys: TokenKeys
  snapshots: ConfigSnapshots
  branding: Branding
  health(): Record<string, unknown>
  settings: Pick<ControlSettings, 'sessionTtlMs' | 'lockout' | 'verifyTimeoutMs' | 'argon'>
  trustProxyHeader: string | undefined
  allowlist: readonly string[]
  verifier?: VerifyWorker
}

const FILE_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

/** The reseller API and UI (spec 2 "Reseller panel API and UI", 127.0.0.1:3330), not listening. */
export function buildResellerServer (d: ResellerServerDeps): FastifyInstance {
  const clientAddress = clientAddressOf(d.trustProxyHeader)
  const gate = allowlistGate(d.allowlist, clientAddress)
  const app = buildControlServer({
    log: d.log,
    info: { title: 'Arus reseller API', version: '1', description: 'See docs/reseller.md' },
    metrics: d.metrics,
    metricsPrefix: 'arus_reseller_',
    health: d.health,
    startedAt: d.startedAt,
    dashboard: { dir: UI_DIR },
    clientAddress,
    ...(gate ? { beforeAuth: gate } : {}),
    loginReply: {
      schema: LoginReply.extend({ role: Role }),
      extra: async (name) => ({ role: d.core.principals.get(name)?.role })
    },
    auth: {
      keys: d.keys,
      sessionTtlMs: d.settings.sessionTtlMs,
      lockout: d.settings.lockout,
      verifyTimeoutMs: d.settings.verifyTimeoutMs,
      decoyCost: d.settings.argon,
      currentTokenVersion: async (name) => currentTokenVersion(d.core, name),
      verifierInput: async (name, password) => verifierInput(d.core, name, password),
      ...(d.verifier ? { verifier: d.verifier } : {})
    }
  })
  route(app, { method: 'GET', url: '/branding.json', auth: false, tag: 'branding', summary: 'Brand name, accent, image URLs and login style', response: BrandingReply },
    async () => d.branding.json)
  route(app, { method: 'GET', url: '/branding.css', auth: false, tag: 'branding', summary: 'Brand colours as CSS custom properties', produces: 'text/css' },
    async (_i, _req, reply) => { void reply.type('text/css; charset=utf-8'); return Buffer.from(d.branding.css) })
  for (const kind of ['logo', 'favicon', 'login-bg'] as const) {
    route(app, { method: 'GET', url: `/branding/${kind}`, auth: false, tag: 'branding', summary: `The ${kind} image (404 when none is configured)`, produces: 'image/*' },
      async (_i, _req, reply) => {
        const file = d.branding.files[kind]
        if (!file) return reply.code(404).send({ error: { code: 'RESELLER_NOT_FOUND', message: `no ${kind} is configured` } })
        void reply.type(file.type).header('content-security-policy', FILE_CSP).header('cache-control', 'public, max-age=300')
        return file.bytes
      })
  }
  resellerRoutes(app, d)
  configRoutes(app, d.snapshots)
  return app
}

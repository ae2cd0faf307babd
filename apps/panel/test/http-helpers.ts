import { createLogger, type FastifyInstance } from '@arus/service'
import { tmpDir, type TestContextLike } from '@arus/testkit'
import { panelActivity } from '../src/audit.js'
import { loadPanelConfig, panelSettings } from '../src/config.js'
import { buildAdminServer, type AdminServerDeps } from '../src/http/server.js'
import { panelReports } from '../src/reports.js'
import type { Reports } from '@arus/reports'
import { countChannels, createPanelMetrics, type PanelMetrics } from '../src/metrics.js'
import { openPanel, type OpenPanel } from '../src/open.js'
import { cliJson, initPanel, panelEnv } from './helpers.js'

/** An in-process panel (no swarm) with its admin API built but not listening. */
export interface AdminApi {
  env: Record<string, string>
  dataDir: string
  panelKey: string
  opened: OpenPanel
  app: FastifyInstance
  metrics: PanelMetrics
  /** The panel's problem reports (REPORTS_* from `env`), started; tests ingest into it directly. */
  reports: Reports
  /** A bearer token of admin `root`. */
  token: string
  /** Authorization header of `token`. */
  auth: { authorization: string }
  /** `app.inject` with the root token; `payload` is sent as JSON unless a Buffer with headers. */
  call(method: string, url: string, payload?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Record<string, unknown>; raw: Buffer }>
  login(username: string, password: string): Promise<{ status: number; body: any }>
  close(): Promise<void>
}

/** `over.dataDir` opens an existing panel data directory (whose key is `over.panelKey`) instead of a fresh one. */
export async function adminApi (t: TestContextLike, over: { env?: Record<string, string>; deps?: Partial<AdminServerDeps>; dataDir?: string; panelKey?: string } = {}): Promise<AdminApi> {
  const dataDir = over.dataDir ?? tmpDir(t, 'panel-http-')
  const env = panelEnv(dataDir, { LOG_LEVEL: 'warn', ...over.env })
  const panelKey = over.dataDir === undefined ? (await initPanel(env)).panelKey : over.panelKey ?? ''
  await cliJson(env, ['add-admin', 'root'], 'root-pw\n')
  const config = loadPanelConfig(env)
  const log = createLogger({ name: 'panel-test', level: 'warn', destination: { write: () => {} } })
  const opened = await openPanel(dataDir, panelSettings(config), { log, activity: panelActivity(log) })
  const metrics = createPanelMetrics()
  const startedAt = Date.now()
  metrics.bind({ startedAt, swarmConnections: () => 0, channels: () => countChannels(opened.ctx.catalog) })
  const reports = panelReports(config, opened.ctx, metrics, log)
  await reports.start()
  const app = buildAdminServer({
    ctx: opened.ctx,
    metrics,
    reports,
    startedAt,
    swarm: null,
    settings: { sessionTtlMs: 3_600_000, verifyTimeoutMs: 30_000, trustProxy: false },
    ...over.deps
  })
  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    await app.close()
    await reports.close()
    await opened.close()
  }
  t.onTestFinished(close)
  const login = async (username: string, password: string) => {
    const r = await app.inject({ method: 'POST', url: '/api/login', payload: { username, password } })
    return { status: r.statusCode, body: r.json() }
  }
  const { body } = await login('root', 'root-pw')
  const auth = { authorization: `Bearer ${body.token as string}` }
  const call: AdminApi['call'] = async (method, url, payload, headers) => {
    const r = await app.inject({
      method: method as 'GET',
      url,
      headers: { ...auth, ...headers },
      ...(payload === undefined ? {} : { payload: payload as string })
    })
    const type = String(r.headers['content-type'] ?? '')
    return { status: r.statusCode, body: type.includes('json') ? r.json() : r.body, headers: r.headers, raw: r.rawPayload }
  }
  return { env, dataDir, panelKey, opened, app, metrics, reports, token: body.token, auth, call, login, close }
}

/** A tiny valid PNG header plus padding (the panel stores bytes; it does not decode images). */
export const PNG = Buffer.from('89504e470d0a1a0a' + '00'.repeat(64), 'hex')

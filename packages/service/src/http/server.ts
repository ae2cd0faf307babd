import Fastify, { LogController, type FastifyInstance, type FastifyRequest } from 'fastify'
import type { Logger } from 'pino'
import { Counter, type Registry } from 'prom-client'
import { z } from 'zod'
import type { ArgonCost } from '@arus/crypto'
import type { AdminRegistry } from '../admin/admins.js'
import { adminRoutes } from '../admin/admin-routes.js'
import { ServiceError } from '../errors.js'
import { installAuthGate, type TokenKeys } from './auth.js'
import { mountDashboard, type DashboardInit } from './dashboard.js'
import { installErrorHandling, sendError, type ErrorMapper } from './errors-http.js'
import { createLockout } from './lockout.js'
import { loginRoute, type AdminVerifier, type LoginReplyExtension, type LoginResult } from './login.js'
import { isLoopbackHost } from './loopback.js'
import { buildOpenApi, type OpenApiInfo } from './openapi.js'
import { route, routeTable } from './routes.js'
import { createVerifyWorker, type VerifyWorker } from './verify-worker.js'

/** Admin authentication of a control server. */
export interface ControlAuthDeps {
  /** Signs and verifies session tokens (the panel passes its identity key pair). */
  keys: TokenKeys
  /** Session token lifetime in ms (default 12 h). */
  sessionTtlMs?: number
  /** The admin's tokenVersion, or null when it no longer exists (checked on every request). Default: the `admins` registry's. */
  currentTokenVersion?(name: string): Promise<number | null>
  /** The admin's verifier and the Argon2id input of `password`, or null for an unknown name. Default: the `admins` registry's. */
  verifierInput?(name: string, password: string): Promise<AdminVerifier | null>
  /** LOCKOUT_THRESHOLD attempts per LOCKOUT_SECONDS, per name and per client address. */
  lockout: { threshold: number; windowSeconds: number }
  /** loginVerifyTimeoutMs (default 30000). Ignored when `verifier` is given. */
  verifyTimeoutMs?: number
  /** Cost of the decoy verification for unknown names (default: the registry's cost, else 64 MiB / 3). Ignored when `verifier` is given. */
  decoyCost?: ArgonCost
  /** A verify worker to use (tests count its verifications); the server then does not close it. */
  verifier?: VerifyWorker
  /** Clock in epoch ms (default Date.now). */
  now?: () => number
}

/** Collaborators of {@link buildControlServer}. */
export interface ControlServerDeps {
  log: Logger
  /** Title and version of the OpenAPI document. */
  info: OpenApiInfo
  /** Registry served at /metrics (see createMetricsRegistry). */
  metrics: Registry
  auth: ControlAuthDeps
  /** The daemon's admin accounts: login and the auth gate check them, and their routes are mounted (GET/POST /api/admins, ...). */
  admins?: AdminRegistry
  /** Prefix of the kit's own metrics (default 'arus_'): `<prefix>admin_logins_total{result}`. */
  metricsPrefix?: string
  /** Extra /healthz fields (e.g. `{ swarmConnections }`); keep it cheap and synchronous. */
  health?: () => Record<string, unknown>
  /** Epoch ms the service started (default: now). */
  startedAt?: number
  /** The dashboard: `dir` served at /, the kit's shell at /kit/ and uPlot at /kit/uplot/ (no token needed); none when absent. */
  dashboard?: DashboardInit
  /** Maps a daemon's own errors (not ArusErrors) to an ArusError, or undefined to let the kit decide. */
  mapError?: ErrorMapper
  /** Trust X-Forwarded-For for the client address (a reverse proxy on the same host). Default false. */
  trustProxy?: boolean
  /** Largest JSON body in bytes (default 1 MiB). */
  bodyLimit?: number
  /** The client address the login lockout and logs key on (default: Fastify's `req.ip`, which honours `trustProxy`). */
  clientAddress?: (req: FastifyRequest) => string
  /** Runs first on every request, before the auth gate (e.g. a client-address allowlist); throw to refuse. */
  beforeAuth?: (req: FastifyRequest) => void | Promise<void>
  /** Extra fields of the login reply (e.g. the reseller's `role`), with the reply schema that declares them. */
  loginReply?: LoginReplyExtension
}

const DEFAULT_TTL_MS = 12 * 3_600_000

const OpenApiReply = z.looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string() }), paths: z.record(z.string(), z.unknown()) })

const HealthReply = z.looseObject({
  up: z.boolean(),
  uptimeSec: z.number().int()
})

/** Security headers on every answer (a route may set a stricter one): the dashboard is same-origin only and never framed. */
const HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'self'; img-src 'self' https: blob: data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
}

/**
 * Builds a daemon's control server without listening: error envelope, security headers,
 * GET /healthz and GET /metrics (unauthenticated, before the auth gate), POST /api/login,
 * the bearer auth gate, GET /api/openapi.json (authenticated) and the dashboard (its files and
 * the kit's shell, unauthenticated). The daemon adds its routes with `route(app, ...)` before
 * `app.ready()` or `listen`.
 */
export function buildControlServer (deps: ControlServerDeps): FastifyInstance {
  const startedAt = deps.startedAt ?? Date.now()
  const currentTokenVersion = deps.auth.currentTokenVersion ?? deps.admins?.currentTokenVersion
  const verifierInput = deps.auth.verifierInput ?? deps.admins?.verifierInput
  if (currentTokenVersion === undefined || verifierInput === undefined) throw ServiceError.invalidArgument('buildControlServer needs an admin registry or auth.currentTokenVersion and auth.verifierInput')
  const decoyCost = deps.auth.decoyCost ?? deps.admins?.argon
  const now = deps.auth.now ?? Date.now
  const app = Fastify({
    loggerInstance: deps.log,
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: deps.trustProxy === true,
    bodyLimit: deps.bodyLimit ?? 1024 * 1024,
    // The router's own refusals (a malformed percent-encoding, a path parameter past its length
    // limit) get the envelope too: a 400 SERVICE_VALIDATION_FAILED that does not echo the path.
    frameworkErrors: (err, req, reply) => { sendError(err, req, reply, deps.mapError) }
  }) as unknown as FastifyInstance
  installErrorHandling(app, deps.mapError)
  acceptEmptyJsonBody(app)
  const beforeAuth = deps.beforeAuth
  if (beforeAuth !== undefined) app.addHook('onRequest', async (req) => { await beforeAuth(req) })
  app.addHook('onSend', async (_req, reply, payload) => {
    for (const [k, v] of Object.entries(HEADERS)) if (!reply.hasHeader(k)) void reply.header(k, v)
    return payload
  })

  route(app, {
    method: 'GET', url: '/healthz', auth: false, tag: 'health', summary: 'Liveness: {up, uptimeSec, ...}; cheap and synchronous', response: HealthReply
  }, async () => ({ up: true, uptimeSec: Math.floor((Date.now() - startedAt) / 1000), ...deps.health?.() }))

  route(app, {
    method: 'GET', url: '/metrics', auth: false, tag: 'health', summary: 'Prometheus metrics (text exposition format)', produces: 'text/plain'
  }, async (_input, _req, reply) => {
    void reply.type(deps.metrics.contentType)
    return Buffer.from(await deps.metrics.metrics())
  })

  const prefix = deps.metricsPrefix ?? 'arus_'
  const logins = new Counter({
    name: `${prefix}admin_logins_total`,
    help: 'Admin HTTP logins by result (ok, failed, locked, busy, timeout, error)',
    labelNames: ['result'],
    registers: [deps.metrics]
  })
  const ownVerifier = deps.auth.verifier === undefined
  const verifier = deps.auth.verifier ?? createVerifyWorker({
    ...(deps.auth.verifyTimeoutMs !== undefined ? { timeoutMs: deps.auth.verifyTimeoutMs } : {}),
    ...(decoyCost !== undefined ? { decoyCost } : {})
  })
  if (ownVerifier) app.addHook('onClose', async () => { await verifier.close() })
  const onResult = (result: LoginResult, name: string, ip: string) => {
    logins.inc({ result })
    const entry = { event: 'admin.login', admin: name.slice(0, 128), result, ip }
    if (result === 'ok') deps.log.info(entry, 'admin login')
    else deps.log.warn(entry, 'admin login refused')
  }
  loginRoute(app, {
    keys: deps.auth.keys,
    sessionTtlMs: deps.auth.sessionTtlMs ?? DEFAULT_TTL_MS,
    verifierInput,
    lockout: createLockout({ threshold: deps.auth.lockout.threshold, windowSeconds: deps.auth.lockout.windowSeconds, now }),
    verifier,
    now,
    onResult,
    clientAddress: deps.clientAddress ?? ((req) => req.ip),
    ...(deps.loginReply !== undefined ? { reply: deps.loginReply } : {})
  })

  installAuthGate(app, { publicKey: deps.auth.keys.publicKey, currentTokenVersion, now })
  if (deps.admins !== undefined) adminRoutes(app, deps.admins)

  let openapi: z.input<typeof OpenApiReply> | undefined
  route(app, {
    method: 'GET', url: '/api/openapi.json', auth: true, tag: 'health', summary: 'This API as an OpenAPI 3.0 document', response: OpenApiReply
  }, async () => {
    openapi ??= buildOpenApi(routeTable(app), deps.info) as unknown as z.input<typeof OpenApiReply>
    return openapi
  })

  if (deps.dashboard !== undefined) mountDashboard(app, deps.dashboard)
  return app
}

/**
 * A body-less POST or DELETE sent with `content-type: application/json` (what many HTTP
 * clients and scripts send) carries no body: the route's body schema then decides, as for a
 * request without the header. Any other body goes through Fastify's own JSON parser (with its
 * prototype-poisoning refusals).
 */
function acceptEmptyJsonBody (app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body.length === 0) {
      done(null, undefined)
      return
    }
    parseJson(req, typeof body === 'string' ? body : body.toString('utf8'), done)
  })
}

/** Where a control server listens. */
export interface ListenInit {
  host: string
  /** 0 picks a free port. */
  port: number
  /** Refuse a non-loopback host (default true: spec 1 "What the service does" 4). */
  loopbackOnly?: boolean
}

/** Listens and resolves to the bound URL (`http://127.0.0.1:<port>`). */
export async function listenControlServer (app: FastifyInstance, init: ListenInit): Promise<string> {
  if (init.loopbackOnly !== false && !isLoopbackHost(init.host)) {
    throw ServiceError.invalidConfig(`control server host ${init.host} is not a loopback address; the admin API binds to loopback only (put a TLS reverse proxy in front of it)`)
  }
  await app.listen({ host: init.host, port: init.port })
  const address = app.server.address()
  if (address === null || typeof address === 'string') return `http://${init.host}:${init.port}`
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return `http://${host}:${address.port}`
}

import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { Agent, request } from 'node:http'
import { join, relative } from 'node:path'
import { HOSTILE_BODIES, HOSTILE_SEGMENTS, plausibleValue, wrongTypedBody, type HostileBody, type JsonSchema } from './fuzz-inputs.js'

/**
 * Route fuzzing of a running daemon (issue 39 item 9). Every route of its authenticated
 * `GET /api/openapi.json`, every method, with and without the bearer token: each path
 * parameter replaced by hostile segments (sent as written, never normalized: node:http, not
 * fetch), and hostile bodies. A state fingerprint (the JSON of every parameter-less
 * authenticated GET, volatile fields dropped) is taken before and after, and /healthz is
 * asked after each route, so a fuzz that changed something or took the daemon down is seen.
 */

/** Options of {@link fuzzRoutes}. */
export interface FuzzRoutesInit {
  /** The daemon's base URL (`http://127.0.0.1:<port>`). */
  baseUrl: string
  /** An admin bearer token, obtained once: the fuzz never logs in. */
  token: string
  /** Routes left out, as `METHOD /path/{param}`. */
  skip?: readonly string[]
  /**
   * Routes that create what their path names (an upsert): their path parameters are fuzzed
   * without a valid body, so a hostile name is refused by validation instead of being written.
   */
  upserts?: readonly string[]
  /** Keys dropped from the fingerprint wherever they appear, besides {@link VOLATILE_KEYS}. */
  volatile?: readonly string[]
  /** GET routes left out of the fingerprint. */
  fingerprintSkip?: readonly string[]
  /** Requests in flight at once. Default 4. */
  concurrency?: number
  /** Bound on each request. Default 15000 ms. */
  requestTimeoutMs?: number
}

/** An answer the fuzz did not accept. */
export interface FuzzFailure { route: string; variant: string; status: number; body: string }

/** What {@link fuzzRoutes} did and saw. */
export interface FuzzReport {
  /** Routes fuzzed, as `METHOD /path/{param}`. */
  routes: string[]
  requests: number
  /** Answers by status. */
  statuses: Record<number, number>
  /** Authenticated hostile path parameters answered past validation (not 400): they reached a handler. */
  reached: number
  failures: FuzzFailure[]
  skipped: Array<{ route: string; reason: string }>
  before: Record<string, unknown>
  after: Record<string, unknown>
}

/** The routes every daemon's control server has from the kit (login, health, config snapshots, backups). */
export const KIT_ROUTES: readonly string[] = [
  'GET /healthz', 'GET /metrics', 'POST /api/login', 'GET /api/openapi.json', 'GET /api/config', 'GET /api/config/snapshots', 'POST /api/config/snapshots', 'GET /api/config/snapshots/{id}',
  'POST /api/config/snapshots/{id}/plan', 'POST /api/config/snapshots/{id}/restore', 'DELETE /api/config/snapshots/{id}',
  'GET /api/config/template', 'POST /api/config/template/plan', 'POST /api/config/template/import', 'GET /api/backups'
]

/** The kit's admin account routes, on the daemons that keep their admins in its registry (not the reseller: principals). */
export const ADMIN_ROUTES: readonly string[] = ['GET /api/admins', 'POST /api/admins', 'DELETE /api/admins/{name}', 'POST /api/admins/{name}/password']

/** Keys that change without anyone changing state: clocks, uptime, memory, disk, swarm, health probes. */
export const VOLATILE_KEYS: readonly string[] = [
  'uptimeSec', 'uptime', 'memory', 'at', 'lastAt', 'createdAt', 'updatedAt', 'generatedAt', 'now',
  'dataSize', 'diskFree', 'diskTotal', 'freeBytes', 'freeMemBytes', 'heapUsedBytes', 'rssBytes',
  'connections', 'peers', 'swarmConnections', 'lastOkAt', 'latencyMs', 'loadavg'
]

type OpenApi = { paths: Record<string, Record<string, Operation>> }
interface Operation {
  security?: unknown[]
  parameters?: Array<{ name: string; in: string; schema?: JsonSchema }>
  requestBody?: { content: Record<string, { schema?: JsonSchema }> }
  responses?: Record<string, { content?: Record<string, unknown> }>
}

/** One route of the document. */
export interface FuzzRoute {
  key: string
  method: string
  path: string
  auth: boolean
  params: Array<{ name: string; schema: JsonSchema | undefined }>
  body: { kind: 'json'; schema: JsonSchema | undefined } | { kind: 'raw'; type: string } | null
  json: boolean
}

/** The routes of an OpenAPI document, in document order. */
export function listRoutes (doc: OpenApi): FuzzRoute[] {
  const out: FuzzRoute[] = []
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(ops)) {
      const method = m.toUpperCase()
      const content = op.requestBody?.content ?? {}
      const jsonBody = content['application/json']
      const rawType = Object.keys(content).find((t) => t !== 'application/json')
      const ok = Object.entries(op.responses ?? {}).find(([s]) => s.startsWith('2'))?.[1]
      out.push({
        key: `${method} ${path}`,
        method,
        path,
        auth: (op.security ?? []).length > 0,
        params: (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => ({ name: p.name, schema: p.schema })),
        body: jsonBody !== undefined ? { kind: 'json', schema: jsonBody.schema } : rawType !== undefined ? { kind: 'raw', type: rawType.replace(/\/\*$/, '/png') } : null,
        json: ok?.content?.['application/json'] !== undefined
      })
    }
  }
  return out
}

interface Reply { status: number; text: string }
interface Send { method: string; path: string; token: string | null; body?: { type: string; data: string | Buffer } }

/** A 1x1 PNG: the body of raw image routes while their path parameters are fuzzed. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64')

function sender (baseUrl: string, timeoutMs: number, agent: Agent) {
  const base = new URL(baseUrl)
  return (s: Send): Promise<Reply> => new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {}
    if (s.token !== null) headers.authorization = `Bearer ${s.token}`
    if (s.body !== undefined) { headers['content-type'] = s.body.type; headers['content-length'] = Buffer.byteLength(s.body.data) }
    const req = request({ host: base.hostname, port: base.port, method: s.method, path: s.path, headers, agent, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error(`${s.method} ${s.path.slice(0, 120)}: no answer in ${timeoutMs} ms`)))
    req.on('error', reject)
    req.end(s.body?.data)
  })
}

/** Runs `jobs` with at most `n` in flight. */
async function pool (jobs: Array<() => Promise<void>>, n: number): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: Math.min(n, jobs.length) }, async () => {
    while (next < jobs.length) await jobs[next++]!()
  }))
}

function strip (value: unknown, volatile: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => strip(v, volatile))
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).filter(([k]) => !volatile.has(k)).map(([k, v]) => [k, strip(v, volatile)]))
}

async function getDoc (send: (s: Send) => Promise<Reply>, token: string): Promise<OpenApi> {
  const r = await send({ method: 'GET', path: '/api/openapi.json', token })
  if (r.status !== 200) throw new Error(`GET /api/openapi.json: ${r.status} ${r.text.slice(0, 200)}`)
  return JSON.parse(r.text) as OpenApi
}

/** Options of {@link stateFingerprint}. */
export type FingerprintInit = Pick<FuzzRoutesInit, 'baseUrl' | 'token' | 'volatile' | 'fingerprintSkip' | 'requestTimeoutMs'>

/**
 * The daemon's state as its parameter-less authenticated JSON GET routes show it, keyed by
 * route, with {@link VOLATILE_KEYS} (and `volatile`) dropped at every depth.
 */
export async function stateFingerprint (init: FingerprintInit): Promise<Record<string, unknown>> {
  const agent = new Agent({ keepAlive: false })
  try {
    const send = sender(init.baseUrl, init.requestTimeoutMs ?? 15_000, agent)
    return await fingerprintWith(send, listRoutes(await getDoc(send, init.token)), init)
  } finally {
    agent.destroy()
  }
}

async function fingerprintWith (send: (s: Send) => Promise<Reply>, routes: FuzzRoute[], init: FingerprintInit): Promise<Record<string, unknown>> {
  const volatile = new Set([...VOLATILE_KEYS, ...(init.volatile ?? [])])
  const skip = new Set(init.fingerprintSkip ?? [])
  const out: Record<string, unknown> = {}
  for (const r of routes) {
    if (r.method !== 'GET' || !r.auth || !r.json || r.params.length > 0 || skip.has(r.key) || r.path === '/api/openapi.json') continue
    const reply = await send({ method: 'GET', path: r.path, token: init.token })
    let body: unknown = reply.text
    try { body = JSON.parse(reply.text) } catch { /* not JSON: compared as text */ }
    out[r.key] = { status: reply.status, body: strip(body, volatile) }
  }
  return out
}

function fill (route: FuzzRoute, hostile: { name: string; value: string } | null): string {
  let path = route.path
  for (const p of route.params) {
    const plain = plausibleValue(p.schema, 'required', p.name)
    const value = hostile?.name === p.name ? hostile.value : encodeURIComponent(typeof plain === 'string' ? plain : 'fuzz')
    path = path.replace(`{${p.name}}`, value)
  }
  return path
}

/** Valid-looking bodies for a route whose path parameters are fuzzed (so the request gets past validation to the lookup). */
function plausibleBodies (route: FuzzRoute, upsert: boolean): Array<Send['body']> {
  if (route.body === null) return [undefined]
  if (route.body.kind === 'raw') return [{ type: route.body.type, data: PNG }]
  if (upsert) return [undefined]
  const seen = new Set<string>()
  const out: Array<Send['body']> = [undefined]
  for (const mode of ['required', 'full'] as const) {
    const v = plausibleValue(route.body.schema, mode)
    if (v === undefined) continue
    const text = JSON.stringify(v)
    if (seen.has(text)) continue
    seen.add(text)
    out.push({ type: 'application/json', data: text })
  }
  return out
}

/**
 * Fuzzes every route of the daemon at `baseUrl` (see the module comment). Accepted answers:
 * without a token on an authenticated route, 401 (or 404 when the path matches no route);
 * a hostile path parameter, 4xx; a hostile body, 4xx — except on a GET that declares no body,
 * which may answer 2xx (it takes no input). Never a 5xx. Authenticated bodies are not sent to
 * authenticated non-GET routes that take neither a body nor a parameter (a body would only
 * run them): those are listed in `skipped`.
 */
export async function fuzzRoutes (init: FuzzRoutesInit): Promise<FuzzReport> {
  const agent = new Agent({ keepAlive: true, maxSockets: init.concurrency ?? 4 })
  const send = sender(init.baseUrl, init.requestTimeoutMs ?? 15_000, agent)
  const skip = new Set(init.skip ?? [])
  const upserts = new Set(init.upserts ?? [])
  const report: FuzzReport = { routes: [], requests: 0, statuses: {}, reached: 0, failures: [], skipped: [], before: {}, after: {} }
  try {
    const routes = listRoutes(await getDoc(send, init.token))
    report.before = await fingerprintWith(send, routes, init)
    for (const route of routes) {
      if (skip.has(route.key)) { report.skipped.push({ route: route.key, reason: 'skipped by the caller' }); continue }
      report.routes.push(route.key)
      await pool(jobsOf(route, upserts.has(route.key), init.token, report, send), init.concurrency ?? 4)
      const health = await send({ method: 'GET', path: '/healthz', token: null }).catch((err: Error) => ({ status: 0, text: err.message }))
      if (health.status !== 200) {
        report.failures.push({ route: route.key, variant: 'GET /healthz afterwards', status: health.status, body: health.text.slice(0, 300) })
        return report
      }
    }
    report.after = await fingerprintWith(send, routes, init)
    return report
  } finally {
    agent.destroy()
  }
}

function jobsOf (route: FuzzRoute, upsert: boolean, token: string, report: FuzzReport, send: (s: Send) => Promise<Reply>): Array<() => Promise<void>> {
  const jobs: Array<() => Promise<void>> = []
  const check = (s: Send, variant: string, accept: (status: number) => boolean, reach = false) => jobs.push(async () => {
    const r = await send(s).catch((err: Error) => ({ status: 0, text: err.message }))
    report.requests++
    report.statuses[r.status] = (report.statuses[r.status] ?? 0) + 1
    if (reach && r.status !== 400) report.reached++
    if (!accept(r.status)) report.failures.push({ route: route.key, variant, status: r.status, body: r.text.slice(0, 300) })
  })
  const is4xx = (s: number) => s >= 400 && s < 500
  // Without a token an authenticated route answers 401 before anything else; only a path no
  // route can match (a parameter past the router's length limit) is refused earlier, with a 4xx.
  const refused = (value: string | null) => !route.auth ? is4xx : value !== null && value.length > 1000 ? is4xx : (s: number) => s === 401
  const label = (s: string) => JSON.stringify(s.length > 40 ? `${s.slice(0, 12)}…(${s.length} chars)` : s)

  // Hostile path parameters, each with the bodies that would pass validation.
  for (const p of route.params) {
    for (const value of HOSTILE_SEGMENTS) {
      const path = fill(route, { name: p.name, value })
      const bodies = plausibleBodies(route, upsert)
      for (const [i, body] of bodies.entries()) {
        const variant = `${p.name}=${label(value)}${body === undefined ? '' : ` body#${i}`}`
        check({ method: route.method, path, token, ...(body !== undefined ? { body } : {}) }, variant, is4xx, true)
      }
      check({ method: route.method, path, token: null, ...(bodies.at(-1) !== undefined ? { body: bodies.at(-1) } : {}) }, `${p.name}=${label(value)} without token`, refused(value))
    }
  }

  // Hostile bodies, on a path with plausible parameters.
  const path = fill(route, null)
  const bodies: HostileBody[] = [...HOSTILE_BODIES]
  const wrong = route.body?.kind === 'json' ? wrongTypedBody(route.body.schema) : null
  if (wrong !== null) bodies.push(wrong)
  const takesNothing = route.body === null && route.params.length === 0
  const withToken = !(route.auth && takesNothing && route.method !== 'GET')
  if (!withToken) report.skipped.push({ route: route.key, reason: 'authenticated bodies not sent: it takes no input, a body would only run it' })
  const accept = route.body === null && route.method === 'GET' ? (s: number) => s < 500 && s > 0 : is4xx
  for (const b of bodies) {
    const body = { type: 'application/json', data: b.text }
    if (withToken) check({ method: route.method, path, token, body }, `body ${b.name}`, accept)
    check({ method: route.method, path, token: null, body }, `body ${b.name} without token`, route.auth ? refused(null) : accept)
  }
  return jobs
}

/** RocksDB's own info logs (`LOG`, `LOG.old.<n>`), written in the background: not state. */
const ROCKSDB_INFO_LOG = /(^|\/)LOG(\.old\.\d+)?$/

/**
 * The files under `dir` whose path (relative, `/`-separated) `include` accepts, each as the
 * SHA-256 of its content: the daemon's state seen from disk, beside what its API shows — its
 * JSON registries and snapshots, and its Corestore (a catalog append lands in RocksDB's
 * write-ahead log at once). By default every file but RocksDB's info logs.
 */
export async function fileFingerprint (dir: string, include: (path: string) => boolean = (p) => !ROCKSDB_INFO_LOG.test(p)): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      const path = join(d, e.name)
      const rel = relative(dir, path).split('\\').join('/')
      if (e.isDirectory()) await walk(path)
      else if (e.isFile() && include(rel)) out[rel] = createHash('sha256').update(await readFile(path)).digest('hex')
    }
  }
  await walk(dir)
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)))
}

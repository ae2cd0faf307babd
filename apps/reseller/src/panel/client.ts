import { Agent, request } from 'undici'
import type { Logger } from '@arus/service'
import { ResellerError } from '../errors.js'

/**
 * The panel admin API, as the reseller's dedicated panel admin (spec 2 "Authentication" 2):
 * logs in on first use and again once on a 401, bounds every call by PANEL_TIMEOUT_MS, and
 * turns failures into the reseller's errors — unreachable (or no password set) → 502
 * RESELLER_PANEL_UNREACHABLE; the panel's 400/404/409 passed through and other refusals 502,
 * all with messages prefixed 'PANEL:'. The password and token never reach a log or an error.
 */

export interface PanelClientInit {
  url: string
  user: string
  pass: string | undefined
  timeoutMs: number
  log: Logger
  /** Largest answer read (default 32 MiB: a big catalog). */
  maxBytes?: number
}

/** Reachability as /healthz and /api/system show it. */
export interface PanelHealth {
  url: string
  reachable: boolean
  lastOkAt: number | null
  lastError: string | null
  latencyMs: number | null
}

export interface PanelClient {
  call<T = unknown>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T>
  health(): PanelHealth
  /**
   * Asks the panel's unauthenticated GET /healthz and records the answer in {@link health}, so
   * an unreachable panel shows on the reseller's own /healthz before any operation fails.
   */
  probe(): Promise<PanelHealth>
  close(): Promise<void>
}

interface Answer { status: number; json: unknown }

/** Errors raised before a request left this box: the panel cannot have acted on it. */
const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET_CLOSED_BEFORE_SEND'])

/** True when a failed call may still have taken effect on the panel (a timeout, a cut answer). */
export function maybeApplied (err: unknown): boolean {
  return (err as { maybeApplied?: unknown }).maybeApplied === true
}

export function createPanelClient (init: PanelClientInit): PanelClient {
  const base = new URL(init.url)
  const agent = new Agent({ connections: 16, headersTimeout: init.timeoutMs, bodyTimeout: init.timeoutMs, connectTimeout: Math.min(init.timeoutMs, 10_000) })
  const maxBytes = init.maxBytes ?? 32 << 20
  const health: PanelHealth = { url: base.origin, reachable: false, lastOkAt: null, lastError: null, latencyMs: null }
  let token: string | null = null
  let loggingIn: Promise<string> | null = null

  /** `sent`: the request may have reached the panel (a timeout), so its effect is unknown. */
  const unreachable = (why: string, sent: boolean) => {
    health.reachable = false
    health.lastError = why
    const err = ResellerError.of('RESELLER_PANEL_UNREACHABLE', `PANEL: unreachable (${why})`)
    return Object.assign(err, { maybeApplied: sent })
  }

  const send = async (method: string, path: string, body: unknown, bearer: string | null): Promise<Answer> => {
    const started = performance.now()
    let res
    try {
      res = await request(new URL(path, base), {
        method: method as 'GET',
        dispatcher: agent,
        headers: {
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(bearer !== null ? { authorization: `Bearer ${bearer}` } : {})
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(init.timeoutMs)
      })
    } catch (err) {
      const e = err as { code?: string; name?: string }
      const timedOut = e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT'
      throw unreachable(timedOut ? `no answer within ${init.timeoutMs} ms` : (e.code ?? e.name ?? 'network error'), !CONNECT_ERRORS.has(e.code ?? ''))
    }
    const chunks: Buffer[] = []
    let size = 0
    try {
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length
        if (size > maxBytes) { res.body.destroy(); throw new Error('too large') }
        chunks.push(chunk as Buffer)
      }
    } catch (err) {
      throw unreachable((err as Error).message === 'too large' ? `answer over ${maxBytes} bytes` : 'answer cut off', true)
    }
    health.reachable = true
    health.lastOkAt = Date.now()
    health.lastError = null
    health.latencyMs = Math.round(performance.now() - started)
    const text = Buffer.concat(chunks).toString('utf8')
    let json: unknown
    try { json = text === '' ? null : JSON.parse(text) } catch { json = null }
    return { status: res.statusCode, json }
  }

  const login = (): Promise<string> => {
    loggingIn ??= (async () => {
      if (init.pass === undefined) throw unreachable('PANEL_ADMIN_PASS is unset', false)
      const a = await send('POST', '/api/login', { username: init.user, password: init.pass }, null)
      const t = (a.json as { token?: unknown } | null)?.token
      if (a.status !== 200 || typeof t !== 'string') {
        init.log.warn({ event: 'panel.login', status: a.status, user: init.user }, 'panel admin login refused')
        throw new ResellerError('RESELLER_PANEL_FAILED', `PANEL: the panel refused the reseller's admin login (HTTP ${a.status}; check PANEL_ADMIN_USER and PANEL_ADMIN_PASS)`, 502)
      }
      token = t
      return t
    })().finally(() => { loggingIn = null })
    return loggingIn
  }

  const failure = (a: Answer): ResellerError => {
    const err = (a.json as { error?: { code?: unknown; message?: unknown } } | null)?.error
    const code = typeof err?.code === 'string' ? err.code : 'PANEL_ERROR'
    const message = typeof err?.message === 'string' ? err.message : `HTTP ${a.status}`
    return ResellerError.panel(a.status, code, message)
  }

  return {
    async call<T> (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
      for (let attempt = 0; attempt < 2; attempt++) {
        const bearer = token ?? await login()
        const a = await send(method, path, body, bearer)
        if (a.status === 401 && attempt === 0) {
          // The session ended (panel restart with a new key, password rotation): log in again once.
          if (token === bearer) token = null
          continue
        }
        if (a.status >= 200 && a.status < 300) return a.json as T
        throw failure(a)
      }
      throw new ResellerError('RESELLER_PANEL_FAILED', 'PANEL: the panel refused the reseller\'s session twice', 502)
    },
    health: () => ({ ...health }),
    async probe () {
      try {
        const a = await send('GET', '/healthz', undefined, null)
        if (a.status !== 200 || (a.json as { up?: unknown } | null)?.up !== true) {
          health.reachable = false
          health.lastError = `GET /healthz answered HTTP ${a.status}${a.status === 404 ? ' (is ADMIN_ENABLED=1 on the panel, and PANEL_ADMIN_URL its admin API?)' : ''}`
        }
      } catch { /* recorded by send */ }
      return { ...health }
    },
    async close () { await agent.close().catch(() => {}) }
  }
}

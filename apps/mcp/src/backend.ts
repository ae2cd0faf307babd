import type { BackendConfig, McpConfig, Service } from './config.js'
import { DEFAULT_PORTS } from './config.js'
import { openTunnel, type Tunnel } from './tunnel.js'

/**
 * One client per configured backend: logs in to its API on first use (never at start-up or in a
 * plain doctor run), logs in again once on a 401, bounds every call, and turns failures into
 * {@link BackendError}s whose messages an operator (or a model) can act on. The password and
 * the token never leave this module.
 */

export interface Reply { status: number; body: any; contentType: string }

export class BackendError extends Error {
  constructor (readonly service: Service, readonly status: number, readonly code: string, message: string) {
    super(message)
    this.name = 'BackendError'
  }
}

export interface Backend {
  readonly service: Service
  /** The base URL in use (the tunnel's local end when tunnelled), or null before the first call. */
  baseUrl(): string | null
  call(method: string, path: string, init?: { body?: unknown; raw?: { bytes: Uint8Array; type: string } }): Promise<Reply>
  /** GET /healthz without logging in. */
  health(): Promise<Reply>
  /** Exactly one real login (the doctor's --login). */
  login(): Promise<void>
  close(): Promise<void>
}

export function createBackend (service: Service, b: BackendConfig, config: McpConfig): Backend {
  let token: string | null = null
  let tunnel: Tunnel | null = null
  let opening: Promise<string> | null = null

  const base = (): Promise<string> => {
    if (b.url !== undefined) return Promise.resolve(b.url.replace(/\/$/, ''))
    if (tunnel) return Promise.resolve(tunnel.url)
    opening ??= (async () => {
      const ssh = config.ssh
      if (!ssh) throw new BackendError(service, 0, 'MCP_NO_ROUTE', `${service}: no url and no ssh block`)
      tunnel = await openTunnel(ssh, b.port ?? DEFAULT_PORTS[service])
      return tunnel.url
    })().finally(() => { opening = null })
    return opening
  }

  const send = async (method: string, path: string, bearer: string | null, init: { body?: unknown; raw?: { bytes: Uint8Array; type: string } } = {}): Promise<Reply> => {
    const url = await base().catch((err: Error) => { throw new BackendError(service, 0, 'MCP_UNREACHABLE', `the ${service} API is unreachable (${err.message}): check the ssh block and that the daemon runs`) })
    const headers: Record<string, string> = {}
    if (bearer) headers.authorization = `Bearer ${bearer}`
    let body: string | Uint8Array | undefined
    if (init.raw) { headers['content-type'] = init.raw.type; body = init.raw.bytes } else if (init.body !== undefined) { headers['content-type'] = 'application/json'; body = JSON.stringify(init.body) }
    let res: Response
    try {
      res = await fetch(url + path, { method, headers, ...(body !== undefined ? { body } : {}), signal: AbortSignal.timeout(config.timeoutMs) })
    } catch (err) {
      const cause = (err as { cause?: { code?: string; errors?: Array<{ code?: string }> } }).cause
      const why = cause?.code ?? cause?.errors?.[0]?.code ?? (err as Error).name
      const hint = service === 'panel' ? 'is arus-panel running with ADMIN_ENABLED=1?' : `is arus-${service} running${service === 'reseller' ? '' : ' with CONTROL_ENABLED=1'}?`
      throw new BackendError(service, 0, 'MCP_UNREACHABLE', `the ${service} API is unreachable at ${url} (${why}): ${hint} Call diagnose_healthz.`)
    }
    const contentType = res.headers.get('content-type') ?? ''
    const text = await res.text()
    let parsed: unknown = text
    if (contentType.includes('json') && text !== '') { try { parsed = JSON.parse(text) } catch { parsed = text } }
    return { status: res.status, body: parsed, contentType }
  }

  const login = async (): Promise<string> => {
    const r = await send('POST', '/api/login', null, { body: { username: b.user, password: b.pass } })
    const t = (r.body as { token?: unknown } | null)?.token
    if (r.status !== 200 || typeof t !== 'string') {
      const code = (r.body as { error?: { code?: string } })?.error?.code ?? `HTTP_${r.status}`
      throw new BackendError(service, r.status, code, `the ${service} refused the tool server's login as ${b.user} (${code}): check the ${service} block of the config`)
    }
    token = t
    return t
  }

  return {
    service,
    baseUrl: () => (b.url ?? tunnel?.url ?? null),
    async call (method, path, init = {}) {
      for (let attempt = 0; attempt < 2; attempt++) {
        const bearer = token ?? await login()
        const r = await send(method, path, bearer, init)
        if (r.status === 401 && attempt === 0) { token = null; continue }
        return r
      }
      throw new BackendError(service, 401, 'MCP_SESSION', `the ${service} ended the tool server's session twice`)
    },
    health: () => send('GET', '/healthz', null),
    async login () { await login() },
    async close () { await tunnel?.close() }
  }
}

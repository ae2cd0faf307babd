/** One HTTP answer: the status and the body (parsed when JSON, else the text). */
export interface HttpReply<T = any> {
  status: number
  body: T
}

/** Credentials the client logs in with (`POST /api/login`) before its first call. */
export interface HttpLogin {
  name: string
  password: string
}

/** Options for {@link createHttpClient}. */
export interface HttpClientInit {
  /** A bearer token to send as is. */
  token?: string | null
  /** Logs in lazily with these when there is no token (again after {@link HttpClient.reset}). */
  login?: HttpLogin
  /** Bound on each request, so a frozen daemon fails the call instead of hanging it. Default 30000 ms. */
  timeoutMs?: number
}

/** Options of one request. */
export interface HttpCallOptions {
  /** `content-type` of a `Uint8Array` body. Default `application/octet-stream`. */
  contentType?: string
  /** Aborts the request (with the client's bound still applying). */
  signal?: AbortSignal
}

/** A small JSON client of a daemon's HTTP API (the panel's admin API, the broadcaster's control API). */
export interface HttpClient {
  readonly url: string
  /**
   * One request; never throws on the status. A `Uint8Array` body is sent raw, anything else
   * as JSON. Rejects when the request fails or runs past the client's bound.
   */
  call<T = any>(method: string, path: string, body?: unknown, opts?: HttpCallOptions): Promise<HttpReply<T>>
  /** {@link call}, then the body (`null` when empty). @throws Error with method, path, status and body on a non-2xx answer. */
  api<T = any>(method: string, path: string, body?: unknown, opts?: HttpCallOptions): Promise<T>
  /** `POST /api/login`; resolves the token. @throws Error with the status and body when refused. */
  login(name: string, password: string, opts?: { signal?: AbortSignal }): Promise<string>
  /** Forgets the token (a restarted daemon): the next call logs in again. */
  reset(): void
}

const DEFAULT_TIMEOUT_MS = 30_000

const show = (body: unknown): string => (typeof body === 'string' ? body : JSON.stringify(body))

/** A client of the HTTP API at `url` (no trailing slash). */
export function createHttpClient (url: string, init: HttpClientInit = {}): HttpClient {
  let token = init.token ?? null
  const timeoutMs = init.timeoutMs ?? DEFAULT_TIMEOUT_MS

  const request = async <T>(method: string, path: string, bearer: string | null, body: unknown, opts: HttpCallOptions): Promise<HttpReply<T>> => {
    const raw = body instanceof Uint8Array
    const headers: Record<string, string> = {}
    if (bearer !== null) headers.authorization = `Bearer ${bearer}`
    if (body !== undefined) headers['content-type'] = raw ? opts.contentType ?? 'application/octet-stream' : 'application/json'
    const bound = AbortSignal.timeout(timeoutMs)
    const signal = opts.signal === undefined ? bound : AbortSignal.any([bound, opts.signal])
    const res = await fetch(url + path, { method, headers, signal, ...(body === undefined ? {} : { body: raw ? body : JSON.stringify(body) }) })
    const text = await res.text()
    const json = text !== '' && (res.headers.get('content-type') ?? '').includes('json')
    return { status: res.status, body: (json ? JSON.parse(text) : text) as T }
  }

  const login = async (name: string, password: string, opts: { signal?: AbortSignal } = {}): Promise<string> => {
    const r = await request<{ token: string }>('POST', '/api/login', null, { username: name, password }, opts)
    if (r.status !== 200) throw new Error(`login as ${name} at ${url}: ${r.status} ${show(r.body)}`)
    return r.body.token
  }

  const call = async <T>(method: string, path: string, body?: unknown, opts: HttpCallOptions = {}): Promise<HttpReply<T>> => {
    if (token === null && init.login !== undefined) token = await login(init.login.name, init.login.password, opts)
    return request<T>(method, path, token, body, opts)
  }

  return {
    url,
    call,
    async api<T> (method: string, path: string, body?: unknown, opts?: HttpCallOptions): Promise<T> {
      const r = await call<T | ''>(method, path, body, opts)
      if (r.status < 200 || r.status > 299) throw new Error(`${method} ${url}${path}: ${r.status} ${show(r.body)}`)
      return (r.body === '' ? null : r.body) as T
    },
    login,
    reset () { if (init.login !== undefined) token = null }
  }
}

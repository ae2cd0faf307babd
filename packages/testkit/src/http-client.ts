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
}

/** A small JSON client of a daemon's HTTP API (the panel's admin API, the broadcaster's control API). */
export interface HttpClient {
  readonly url: string
  /**
   * One request; never throws on the status. A `Uint8Array` body is sent raw
   * (`content-type` `contentType`, default `application/octet-stream`), anything else as JSON.
   */
  call<T = any>(method: string, path: string, body?: unknown, contentType?: string): Promise<HttpReply<T>>
  /** {@link call}, then the body (`null` when empty). @throws Error with method, path, status and body on a non-2xx answer. */
  api<T = any>(method: string, path: string, body?: unknown, contentType?: string): Promise<T>
  /** `POST /api/login`; resolves the token. @throws Error with the status and body when refused. */
  login(name: string, password: string): Promise<string>
  /** Forgets the token (a restarted daemon): the next call logs in again. */
  reset(): void
}

/** A client of the HTTP API at `url` (no trailing slash). */
export function createHttpClient (url: string, init: HttpClientInit = {}): HttpClient {
  let token = init.token ?? null

  const request = async <T>(method: string, path: string, bearer: string | null, body?: unknown, contentType?: string): Promise<HttpReply<T>> => {
    const raw = body instanceof Uint8Array
    const headers: Record<string, string> = {}
    if (bearer !== null) headers.authorization = `Bearer ${bearer}`
    if (body !== undefined) headers['content-type'] = contentType ?? (raw ? 'application/octet-stream' : 'application/json')
    const res = await fetch(url + path, { method, headers, ...(body === undefined ? {} : { body: raw ? body : JSON.stringify(body) }) })
    const text = await res.text()
    const json = text !== '' && (res.headers.get('content-type') ?? '').includes('json')
    return { status: res.status, body: (json ? JSON.parse(text) : text) as T }
  }

  const login = async (name: string, password: string): Promise<string> => {
    const r = await request<{ token: string }>('POST', '/api/login', null, { username: name, password })
    if (r.status !== 200) throw new Error(`login as ${name} at ${url}: ${r.status} ${JSON.stringify(r.body)}`)
    return r.body.token
  }

  const call = async <T>(method: string, path: string, body?: unknown, contentType?: string): Promise<HttpReply<T>> => {
    if (token === null && init.login !== undefined) token = await login(init.login.name, init.login.password)
    return request<T>(method, path, token, body, contentType)
  }

  return {
    url,
    call,
    async api<T> (method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
      const r = await call<T | ''>(method, path, body, contentType)
      if (r.status < 200 || r.status > 299) throw new Error(`${method} ${path}: ${r.status} ${typeof r.body === 'string' ? r.body : JSON.stringify(r.body)}`)
      return (r.body === '' ? null : r.body) as T
    },
    login,
    reset () { if (init.login !== undefined) token = null }
  }
}

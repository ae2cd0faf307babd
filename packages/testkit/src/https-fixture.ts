import { execFileSync } from 'node:child_process'
import { createServer, type Server } from 'node:https'
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import { registerTeardown, type TestContextLike } from './teardown.js'
import { tmpDir } from './tmp.js'

/**
 * A real HTTPS server on 127.0.0.1 with a throwaway certificate (openssl, for 127.0.0.1 and
 * localhost), serving what a test sets per path. A process trusts it through
 * `NODE_EXTRA_CA_CERTS=<caFile>` — the product has no insecure switch. Answers carry an ETag
 * and honour If-None-Match with 304, as providers' CDNs do.
 */

/** What a path answers. */
export interface FixtureResponse {
  body: string | Buffer
  status?: number
  /** Default: a hash of the body; null sends none. */
  etag?: string | null
  headers?: Record<string, string>
  /** Sends the body in chunks of this size without a content-length (a streamed body). */
  chunkBytes?: number
}

export interface HttpsFixture {
  /** `https://127.0.0.1:<port><path>`. */
  url(path: string): string
  /** The certificate to trust (NODE_EXTRA_CA_CERTS). */
  caFile: string
  set(path: string, response: FixtureResponse): void
  /** Requests per path, and how many were answered 304. */
  hits(path: string): { requests: number; notModified: number }
  close(): Promise<void>
}

export async function startHttpsFixture (t: TestContextLike | undefined): Promise<HttpsFixture> {
  const dir = tmpDir(t, 'arus-https-')
  const key = join(dir, 'key.pem')
  const cert = join(dir, 'cert.pem')
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore', timeout: 30_000 })
  const routes = new Map<string, FixtureResponse>()
  const counts = new Map<string, { requests: number; notModified: number }>()
  const server: Server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    const c = counts.get(path) ?? { requests: 0, notModified: 0 }
    c.requests++
    counts.set(path, c)
    const r = routes.get(path)
    if (r === undefined) { res.writeHead(404).end('not found'); return }
    const body = Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body)
    const etag = r.etag === undefined ? `"${Buffer.from(body).toString('base64').length}-${hash(body)}"` : r.etag
    if (etag !== null && req.headers['if-none-match'] === etag) { c.notModified++; res.writeHead(304, { etag }).end(); return }
    const headers = { ...(etag !== null ? { etag } : {}), ...r.headers }
    if (r.chunkBytes !== undefined) {
      res.writeHead(r.status ?? 200, headers)
      for (let i = 0; i < body.length; i += r.chunkBytes) res.write(body.subarray(i, i + r.chunkBytes))
      res.end()
      return
    }
    res.writeHead(r.status ?? 200, { ...headers, 'content-length': String(body.length) }).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  const close = registerTeardown(t, () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  return {
    url: (path) => `https://127.0.0.1:${port}${path}`,
    caFile: cert,
    set: (path, response) => { routes.set(path, response) },
    hits: (path) => ({ ...(counts.get(path) ?? { requests: 0, notModified: 0 }) }),
    close
  }
}

function hash (b: Buffer): string {
  let h = 2166136261
  for (const x of b) { h ^= x; h = Math.imul(h, 16777619) >>> 0 }
  return h.toString(16)
}

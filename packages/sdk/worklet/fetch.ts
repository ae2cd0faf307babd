import https from 'bare-https'
import type { FetchLike } from '@arus/sdk'

/**
 * The engine's own https client under Bare (which has no global fetch): just what the EPG
 * service asks of `fetch` (spec 3 "EPG data": GET with headers, status, headers, a streamed
 * body it caps itself, abort on its timeout). `ca` (PEM) replaces the built-in roots: the
 * worklet's `--ca <file>` for a private CA or a test server; without it the system roots apply.
 */
export function bareFetch (ca: Uint8Array | null): FetchLike {
  return (url, init) => new Promise((resolve, reject) => {
    const req = https.request(url, { method: 'GET', headers: init.headers, ...(ca === null ? {} : { ca }) }, (res: any) => {
      const iterator = res[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>
      resolve({
        status: res.statusCode as number,
        headers: { get: (name: string) => { const v = res.headers[name.toLowerCase()]; return v === undefined ? null : String(v) } },
        body: {
          getReader: () => ({
            read: async () => { const r = await iterator.next(); return r.done === true ? { done: true } : { done: false, value: r.value } },
            cancel: async () => { res.destroy() }
          })
        },
        arrayBuffer: async () => { throw new Error('read the body with getReader()') }
      })
    })
    const abort = (): void => { req.destroy(new Error('aborted')) }
    if (init.signal.aborted) abort()
    init.signal.addEventListener('abort', abort, { once: true })
    req.on('error', reject)
    req.end()
  })
}

import { request } from 'undici'

/**
 * One feed pull over https (spec 1 "Source sync policy" rule 8): the stored ETag is sent, a
 * 304 is "not modified", redirects are followed (https only, at most MAX_REDIRECTS), the whole
 * pull is bounded in time, and the size cap is enforced while the body streams in — never
 * after buffering it. Failures are `PullError`s whose message never holds the full URL.
 */

export const MAX_REDIRECTS = 3

export class PullError extends Error {}

/** The URL as it may be shown: scheme, host and path — no credentials, no query (provider tokens live there). */
export function redactUrl (url: string): string {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}${u.pathname}${u.search === '' ? '' : '?…'}`
  } catch {
    return '(invalid url)'
  }
}

export type PullResult = { status: 304 } | { status: 200; body: string; etag: string | null; bytes: number }

export async function pullFeed (url: string, init: { etag: string | null; maxBytes: number; timeoutMs: number }): Promise<PullResult> {
  const signal = AbortSignal.timeout(init.timeoutMs)
  let current = new URL(url)
  try {
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      if (current.protocol !== 'https:') throw new PullError(`${redactUrl(current.href)}: only https feeds are pulled`)
      const res = await request(current, {
        method: 'GET',
        signal,
        headers: { accept: 'application/json, audio/x-mpegurl, application/vnd.apple.mpegurl, */*', ...(init.etag !== null ? { 'if-none-match': init.etag } : {}) }
      })
      if ([301, 302, 303, 307, 308].includes(res.statusCode)) {
        await res.body.dump()
        const location = res.headers.location
        if (typeof location !== 'string') throw new PullError(`${redactUrl(current.href)}: redirect without a location`)
        current = new URL(location, current)
        continue
      }
      if (res.statusCode === 304) { await res.body.dump(); return { status: 304 } }
      if (res.statusCode !== 200) { await res.body.dump(); throw new PullError(`${redactUrl(current.href)}: HTTP ${res.statusCode}`) }
      const declared = Number(res.headers['content-length'])
      if (Number.isFinite(declared) && declared > init.maxBytes) {
        res.body.destroy()
        throw new PullError(`feed larger than SOURCES_MAX_BYTES (${init.maxBytes} bytes)`)
      }
      const chunks: Buffer[] = []
      let total = 0
      for await (const chunk of res.body) {
        total += (chunk as Buffer).length
        if (total > init.maxBytes) {
          res.body.destroy()
          throw new PullError(`feed larger than SOURCES_MAX_BYTES (${init.maxBytes} bytes)`)
        }
        chunks.push(chunk as Buffer)
      }
      const etag = res.headers.etag
      return { status: 200, body: Buffer.concat(chunks).toString('utf8'), etag: typeof etag === 'string' ? etag : null, bytes: total }
    }
    throw new PullError(`${redactUrl(url)}: more than ${MAX_REDIRECTS} redirects`)
  } catch (err) {
    if (err instanceof PullError) throw err
    if (signal.aborted) throw new PullError(`${redactUrl(url)}: no complete answer within ${init.timeoutMs} ms`)
    const code = (err as { code?: unknown }).code
    throw new PullError(`${redactUrl(current.href)}: ${typeof code === 'string' ? code : 'request failed'}`)
  }
}

import b4a from 'b4a'
import type { HttpRequestLike, HttpResponseLike } from '../runtime.js'
import { pump, type BodySource } from './pump.js'
import { parseRange } from './range.js'

/** What a served feed offers the server (implemented over `@arus/feed` by the engine). */
export interface MediaSource {
  readonly type: 'live' | 'vod'
  /** The playlist text to serve (held up to `timeoutMs`); rejects when it does not appear. */
  playlist(opts: { timeoutMs: number; signal: AbortSignal }): Promise<{ text: string; segments: string[] }>
  /** Size of a segment once it exists (held up to `timeoutMs`); rejects when it does not appear. */
  size(path: string, opts: { timeoutMs: number; signal: AbortSignal }): Promise<number>
  /** Bytes [start, end] inclusive, streamed as blocks arrive; errors when it stalls for `stallMs`. */
  read(path: string, opts: { start: number; end: number; stallMs: number; signal: AbortSignal }): BodySource
  /** Ask for these segment paths ahead of the player. */
  readAhead(paths: string[]): void
  /** A segment request arrived: read the ones after it ahead (VOD and live alike). */
  segmentRequested(path: string, ahead: number): void
}

/** Art from the panel's assets drive. */
export interface AssetSource {
  size(path: string, opts: { timeoutMs: number }): Promise<number | null>
  read(path: string, opts: { start: number; end: number }): BodySource
}

export interface ServerContext {
  holdMs: number
  stallMs: number
  readAheadSegments: number
  allowOrigin: string | null
  media(): MediaSource | null
  assets(): AssetSource | null
}

const SEGMENT = /^\/seg\d{1,15}\.ts$/
const ASSET = /^\/assets\/[0-9a-f]{16,128}\.(png|jpg|jpeg|webp|gif|svg)$/
const ASSET_TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif', svg: 'image/svg+xml'
}

/**
 * Host names this loopback server answers to. Anything else is a page whose own host name was
 * made to resolve to 127.0.0.1 (DNS rebinding): the browser would count it as same-origin and
 * let it read decrypted media without any CORS header, so it is refused.
 */
const LOOPBACK_HOST = /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d{1,5})?$/i

export async function handleRequest (ctx: ServerContext, req: HttpRequestLike, res: HttpResponseLike): Promise<void> {
  const base: Record<string, string> = { 'cache-control': 'no-cache' }
  const host = req.headers.host
  if (host !== undefined && (typeof host !== 'string' || !LOOPBACK_HOST.test(host))) return end(res, 421, { ...base, 'content-length': 0 })
  if (ctx.allowOrigin !== null) base['access-control-allow-origin'] = ctx.allowOrigin
  const method = req.method ?? 'GET'
  if (method === 'OPTIONS' && ctx.allowOrigin !== null) {
    return end(res, 204, { ...base, 'access-control-allow-methods': 'GET, HEAD', 'access-control-allow-headers': 'range', 'content-length': 0 })
  }
  if (method !== 'GET' && method !== 'HEAD') return end(res, 405, { ...base, allow: 'GET, HEAD', 'content-length': 0 })
  const path = pathOf(req.url)
  const head = method === 'HEAD'
  const abort = new AbortController()
  // The response's close: the client went away (or the answer is done). Not the request's: a
  // runtime may end a body-less request stream at once (Bare's http1 does).
  res.on('close', () => abort.abort())

  if (path !== null && ASSET.test(path)) return serveAsset(ctx, req, res, path, head, base)
  const media = ctx.media()
  if (path === '/index.m3u8') {
    if (media === null) return end(res, 503, { ...base, 'content-length': 0, 'retry-after': 1 })
    let list
    try {
      list = await media.playlist({ timeoutMs: ctx.holdMs, signal: abort.signal })
    } catch {
      return end(res, 404, { ...base, 'content-length': 0 })
    }
    const body = b4a.from(list.text, 'utf8')
    res.writeHead(200, { ...base, 'content-type': 'application/vnd.apple.mpegurl', 'content-length': body.byteLength })
    res.end(head ? undefined : body)
    // Live edge read-ahead: the newest segments are requested as soon as the playlist is out.
    if (media.type === 'live' && ctx.readAheadSegments > 0) media.readAhead(list.segments.slice(-ctx.readAheadSegments).map((s) => '/' + s))
    return
  }
  if (path !== null && SEGMENT.test(path)) {
    if (media === null) return end(res, 404, { ...base, 'content-length': 0 })
    let size: number
    try {
      size = await media.size(path, { timeoutMs: ctx.holdMs, signal: abort.signal })
    } catch {
      return end(res, 404, { ...base, 'content-length': 0 })
    }
    if (ctx.readAheadSegments > 0) media.segmentRequested(path, ctx.readAheadSegments)
    return serveBytes(res, head, size, req.headers.range, { ...base, 'content-type': 'video/mp2t' },
      (start, end) => media.read(path, { start, end, stallMs: ctx.stallMs, signal: abort.signal }), ctx.stallMs)
  }
  return end(res, 404, { ...base, 'content-length': 0 })
}

async function serveAsset (ctx: ServerContext, req: HttpRequestLike, res: HttpResponseLike, path: string, head: boolean, base: Record<string, string>): Promise<void> {
  const assets = ctx.assets()
  const drivePath = path
  const size = assets === null ? null : await assets.size(drivePath, { timeoutMs: ctx.holdMs }).catch(() => null)
  if (assets === null || size === null) return end(res, 404, { ...base, 'content-length': 0 })
  const ext = path.slice(path.lastIndexOf('.') + 1)
  // Art is content-addressed (the name is its hash), so it never changes under its URL.
  const headers = { ...base, 'cache-control': 'max-age=31536000, immutable', 'content-type': ASSET_TYPES[ext] ?? 'application/octet-stream' }
  return serveBytes(res, head, size, req.headers.range, headers, (start, end) => assets.read(drivePath, { start, end }), ctx.stallMs)
}

async function serveBytes (res: HttpResponseLike, head: boolean, size: number, rangeHeader: string | string[] | undefined,
  headers: Record<string, string>, open: (start: number, end: number) => BodySource, stallMs: number): Promise<void> {
  const range = parseRange(rangeHeader, size)
  if (range.kind === 'unsatisfiable') return end(res, 416, { ...headers, 'content-range': `bytes */${size}`, 'content-length': 0 })
  const start = range.kind === 'partial' ? range.start : 0
  const last = range.kind === 'partial' ? range.end : size - 1
  const length = size === 0 ? 0 : last - start + 1
  const status = range.kind === 'partial' ? 206 : 200
  const out: Record<string, string | number> = { ...headers, 'accept-ranges': 'bytes', 'content-length': length }
  if (status === 206) out['content-range'] = `bytes ${start}-${last}/${size}`
  res.writeHead(status, out)
  if (head || length === 0) { res.end(); return }
  const outcome = await pump(open(start, last), res, stallMs)
  if (outcome === 'done') res.end()
  else res.destroy()
}

function end (res: HttpResponseLike, status: number, headers: Record<string, string | number>): void {
  res.writeHead(status, headers)
  res.end()
}

function pathOf (url: string | undefined): string | null {
  if (url === undefined) return null
  try {
    return new URL(url, 'http://127.0.0.1').pathname
  } catch {
    return null
  }
}

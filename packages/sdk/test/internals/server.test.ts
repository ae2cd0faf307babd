import http from 'node:http'
import fs from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import type { FsModule, HttpModule } from '../../src/runtime.js'
import { startLocalServer } from '../../src/server/local-server.js'
import type { MediaSource, ServerContext } from '../../src/server/routes.js'

const runtime = { http: http as unknown as HttpModule, fs: fs as unknown as FsModule }
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A media source whose segment appears after `appearMs` and streams `chunks` with `gapMs` between them. */
function media (opts: { appearMs?: number; chunks?: number; gapMs?: number; stallAfter?: number } = {}) {
  const calls: string[] = []
  const chunk = new Uint8Array(1000).fill(0x47)
  const total = (opts.chunks ?? 3) * chunk.byteLength
  const source: MediaSource = {
    type: 'live',
    async playlist () {
      return { text: '#EXTM3U\n#EXTINF:1,\nseg1.ts\n#EXTINF:1,\nseg2.ts\n#EXTINF:1,\nseg3.ts\n', segments: ['seg1.ts', 'seg2.ts', 'seg3.ts'] }
    },
    async size (_path, { timeoutMs }) {
      const wait = opts.appearMs ?? 0
      if (wait > timeoutMs) { await sleep(timeoutMs); throw new Error('FEED_TIMEOUT') }
      await sleep(wait)
      return total
    },
    read (_path, { start, end }) {
      let stopped = false
      return {
        async * [Symbol.asyncIterator] () {
          let sent = 0
          for (let i = 0; sent < end - start + 1; i++) {
            if (opts.stallAfter !== undefined && i >= opts.stallAfter) await sleep(60_000)
            if (stopped) return
            const n = Math.min(chunk.byteLength, end - start + 1 - sent)
            yield chunk.subarray(0, n)
            sent += n
            await sleep(opts.gapMs ?? 0)
          }
        },
        destroy () { stopped = true }
      }
    },
    readAhead (paths) { calls.push(`ahead:${paths.join(',')}`) },
    segmentRequested (path, n) { calls.push(`after:${path}:${n}`) }
  }
  return { source, calls, total }
}

async function serve (t: { onTestFinished(fn: () => unknown): void }, m: MediaSource | null, over: Partial<ServerContext> = {}) {
  const server = await startLocalServer(runtime, { holdMs: 2000, stallMs: 300, readAheadSegments: 2, allowOrigin: '*', media: () => m, assets: () => null, ...over })
  t.onTestFinished(() => server.close())
  return `http://127.0.0.1:${server.port}`
}

describe('local HLS server', () => {
  it('holds a request for media not yet replicated instead of answering 404', async (t) => {
    const m = media({ appearMs: 800 })
    const base = await serve(t, m.source)
    const started = Date.now()
    const res = await fetch(`${base}/seg1.ts`)
    expect(res.status).toBe(200)
    expect(Date.now() - started).toBeGreaterThanOrEqual(700)
    expect((await res.arrayBuffer()).byteLength).toBe(m.total)
    expect(m.calls).toContain('after:/seg1.ts:2')
  })

  it('answers 404 once the hold bound passes', async (t) => {
    const base = await serve(t, media({ appearMs: 10_000 }).source, { holdMs: 300 })
    const started = Date.now()
    expect((await fetch(`${base}/seg1.ts`)).status).toBe(404)
    expect(Date.now() - started).toBeLessThan(3000)
  })

  it('streams the body as blocks arrive', async (t) => {
    const base = await serve(t, media({ chunks: 5, gapMs: 200 }).source, { stallMs: 2000 })
    const res = await fetch(`${base}/seg1.ts`)
    const reader = res.body!.getReader()
    const started = Date.now()
    const first = await reader.read()
    const firstAt = Date.now() - started
    let n = first.value?.byteLength ?? 0
    for (;;) { const r = await reader.read(); if (r.done) break; n += r.value.byteLength }
    expect(n).toBe(5000)
    expect(firstAt).toBeLessThan(Date.now() - started - 500) // the first bytes came well before the last
  })

  it('aborts a read that stalls (the response is cut, not hung)', async (t) => {
    const base = await serve(t, media({ chunks: 3, stallAfter: 1 }).source, { stallMs: 300 })
    const started = Date.now()
    const res = await fetch(`${base}/seg1.ts`)
    expect(res.status).toBe(200)
    await expect(res.arrayBuffer()).rejects.toThrow()
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it('serves the playlist, then reads the live edge ahead', async (t) => {
    const m = media()
    const base = await serve(t, m.source)
    const res = await fetch(`${base}/index.m3u8`)
    expect(res.headers.get('content-type')).toBe('application/vnd.apple.mpegurl')
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(await res.text()).toContain('seg3.ts')
    expect(m.calls).toEqual(['ahead:/seg2.ts,/seg3.ts'])
  })

  it('503 while nothing plays; CORS preflight; no CORS header when disabled', async (t) => {
    const base = await serve(t, null)
    expect((await fetch(`${base}/index.m3u8`)).status).toBe(503)
    const pre = await fetch(`${base}/index.m3u8`, { method: 'OPTIONS' })
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-methods')).toBe('GET, HEAD')
    const quiet = await serve(t, null, { allowOrigin: null })
    expect((await fetch(`${quiet}/index.m3u8`)).headers.get('access-control-allow-origin')).toBeNull()
    expect((await fetch(`${quiet}/index.m3u8`, { method: 'OPTIONS' })).status).toBe(405)
  })

  it('listens on 127.0.0.1 on a random port, through the injected http module', async (t) => {
    const listens: Array<[number, string]> = []
    const spy: HttpModule = {
      createServer (handler) {
        const server = http.createServer(handler as http.RequestListener)
        const listen = server.listen.bind(server) as (port: number, host: string, cb: () => void) => unknown
        return Object.assign(server, { listen: (port: number, host: string, cb: () => void) => { listens.push([port, host]); return listen(port, host, cb) } }) as never
      }
    }
    const server = await startLocalServer({ http: spy, fs: runtime.fs }, { holdMs: 100, stallMs: 100, readAheadSegments: 0, allowOrigin: null, media: () => null, assets: () => null })
    t.onTestFinished(() => server.close())
    expect(listens).toEqual([[0, '127.0.0.1']])
    expect(server.port).toBeGreaterThan(0)
  })
})

import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomBytes, toHex } from '@arus/crypto'
import { createPlayer, type PlayerInit } from '@arus/sdk'
import { cleanupAll, createTestnet, tmpDir, type TestContextLike, type Testnet } from '@arus/testkit'

// Issue 39 item 7: the local HLS server used to answer `Access-Control-Allow-Origin: *`, so any
// web page open on the device that found the port could read a paid channel's decrypted
// segments. By default it now sends no CORS header (and answers no preflight);
// `server.allowOrigin` is the explicit opt-in for a browser player on another origin.
const ctx = { onTestFinished: () => {} }
let testnet: Testnet

beforeAll(async () => { testnet = await createTestnet(ctx) }, 60_000)
afterAll(async () => { await cleanupAll() }, 60_000)

const PAGE = 'http://127.0.0.1:8080'

/** A connected player's local server base URL (connect() starts the server). */
async function localServer (t: TestContextLike, init: PlayerInit = {}): Promise<string> {
  const player = createPlayer({ panelPubKey: toHex(randomBytes(32)), storeDir: tmpDir(t, 'arus-viewer-'), swarm: { bootstrap: testnet.bootstrap }, ...init })
  t.onTestFinished(() => player.stop())
  await player.connect()
  return `http://127.0.0.1:${player.port!}`
}

/** A GET with a given Host header (fetch does not let a caller set it; a rebinding browser does). */
const getWithHost = (base: string, path: string, host: string) => new Promise<number>((resolve, reject) => {
  const req = request(`${base}${path}`, { headers: { host } }, (res) => { res.resume(); resolve(res.statusCode ?? 0) })
  req.on('error', reject)
  req.end()
})

const preflight = (url: string) => fetch(url, { method: 'OPTIONS', headers: { origin: PAGE, 'access-control-request-method': 'GET', 'access-control-request-headers': 'range' } })

describe('the local HLS server and other origins', () => {
  it('by default answers with no Access-Control-Allow-Origin, and no preflight', async (t) => {
    const base = await localServer(t)
    for (const path of ['/index.m3u8', '/seg1.ts', '/assets/0123456789abcdef.png']) {
      const res = await fetch(`${base}${path}`, { headers: { origin: PAGE } })
      expect(res.status, path).toBeGreaterThanOrEqual(400) // nothing plays: 503 / 404
      expect(res.headers.get('access-control-allow-origin'), path).toBeNull()
      await res.arrayBuffer()
    }
    const pre = await preflight(`${base}/index.m3u8`)
    expect(pre.status).toBe(405)
    expect(pre.headers.get('access-control-allow-origin')).toBeNull()
    expect(pre.headers.get('access-control-allow-methods')).toBeNull()
  })

  it('server.allowOrigin opts in: the header on every answer, and the preflight', async (t) => {
    const base = await localServer(t, { server: { allowOrigin: PAGE } })
    const res = await fetch(`${base}/index.m3u8`, { headers: { origin: PAGE } })
    expect(res.status).toBe(503)
    expect(res.headers.get('access-control-allow-origin')).toBe(PAGE)
    const pre = await preflight(`${base}/index.m3u8`)
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBe(PAGE)
    expect(pre.headers.get('access-control-allow-methods')).toBe('GET, HEAD')
  })

  it('refuses a request whose Host is not a loopback name (DNS rebinding), before anything is served', async (t) => {
    const base = await localServer(t)
    const port = new URL(base).port
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1.evil.example:${port}`]) expect(await getWithHost(base, '/index.m3u8', host), host).toBe(421)
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, '127.0.0.1']) expect(await getWithHost(base, '/index.m3u8', host), host).toBe(503)
  })
})

import { performance } from 'node:perf_hooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RangeChange, StreamRecord } from '@arus/catalog'
import { cleanupAll, createTestnet, spawnProcess, tmpDir, withTimeout, type SpawnedProcess, type Testnet } from '@arus/testkit'
import { cliJson, initPanel, linkToPanel, PANEL_BIN, panelEnv, spawnPanel, type PanelLink } from './helpers.js'
import { PNG } from './http-helpers.js'

// `arus-panel run` (the built daemon, a separate process) with ADMIN_ENABLED=1 on a local
// testnet; a viewer peer replicates the catalog and watches it (no polling). Each admin edit
// over HTTP must arrive at the viewer as a live push (spec 1 "Events" 1).

let testnet: Testnet
let panel: SpawnedProcess
let base: string
let auth: Record<string, string>
let link: PanelLink

async function http (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const raw = body instanceof Uint8Array
  const res = await fetch(base + path, {
    method,
    headers: { ...auth, ...(body === undefined || raw ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: raw ? body : JSON.stringify(body) })
  })
  const data = res.headers.get('content-type')?.includes('json') ? await res.json() : await res.text()
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(data)}`)
  return data
}

beforeAll(async () => {
  testnet = await createTestnet()
  const env = panelEnv(tmpDir(undefined, 'panel-live-'), { BOOTSTRAP: testnet.bootstrapString, ADMIN_ENABLED: '1', ADMIN_PORT: '0' })
  const { panelKey } = await initPanel(env)
  await cliJson(env, ['add-admin', 'root'], 'root-pw\n')
  panel = await spawnPanel(undefined, env)
  base = (await panel.waitForLine(/"event":"admin.listening".*"url":"(http:\/\/127\.0\.0\.1:\d+)"/, 10_000))[1]!
  const login = await fetch(`${base}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'root', password: 'root-pw' }) })
  auth = { authorization: `Bearer ${((await login.json()) as { token: string }).token}` }
  link = await linkToPanel({ onTestFinished: () => {} }, testnet, panelKey)
}, 60_000)

afterAll(async () => { await cleanupAll() }, 30_000)

/** Resolves with the ms from `edit()` start until the viewer's watch reports a change matching `arrived`. */
async function pushDelay (prefix: string, edit: () => Promise<unknown>, arrived: (c: RangeChange) => boolean): Promise<number> {
  let resolve!: (ms: number) => void
  const seen = new Promise<number>((r) => { resolve = r })
  let t0 = 0
  const watch = link.reader.watch(prefix, (changes) => { if (changes.some(arrived)) resolve(performance.now() - t0) })
  try {
    await watch.ready()
    t0 = performance.now()
    await edit()
    return await withTimeout(seen, 15_000, `the viewer's watch of ${prefix}`)
  } finally {
    await watch.close()
  }
}

const stream = (c: RangeChange) => (c.key === 'catalog/news' ? c.value as StreamRecord | null : null)

describe('admin edits reach a viewer as live pushes', () => {
  it('title, art, order, isLive and a category rename each arrive through the replicated watch', async () => {
    const delays: Record<string, number> = {}
    delays.add = await pushDelay('catalog/', () => http('POST', '/api/streams', { id: 'news', title: 'News', category: ['News'] }), (c) => stream(c)?.title === 'News')
    delays.title = await pushDelay('catalog/', () => http('PATCH', '/api/streams/news', { title: 'Evening News' }), (c) => stream(c)?.title === 'Evening News')
    // The viewer can see the edit before the admin's answer arrives: the path is checked below.
    let poster = ''
    delays.art = await pushDelay('catalog/', async () => { poster = (await http('POST', '/api/streams/news/art/poster', PNG, { 'content-type': 'image/png' })).path },
      (c) => /^assets\/[0-9a-f]{64}\.png$/.test(stream(c)?.poster ?? ''))
    delays.order = await pushDelay('catalog/', () => http('PATCH', '/api/streams/news', { order: 42 }), (c) => stream(c)?.order === 42)
    delays.isLive = await pushDelay('catalog/', () => http('PATCH', '/api/streams/news', { isLive: true }), (c) => { const s = stream(c); return s?.type === 'live' && s.isLive })
    delays.categoryRename = await pushDelay('catmeta/', () => http('PATCH', '/api/categories/news', { label: 'Headlines' }), (c) => c.key === 'catmeta/news' && (c.value as { label?: string } | null)?.label === 'Headlines')

    // A series of title edits for a distribution.
    const series: number[] = []
    for (let i = 0; i < 20; i++) {
      const title = `News ${i}`
      series.push(await pushDelay('catalog/', () => http('PATCH', '/api/streams/news', { title }), (c) => stream(c)?.title === title))
    }
    await pushDelay('catalog/', () => http('PATCH', '/api/streams/news', { title: 'Evening News' }), (c) => stream(c)?.title === 'Evening News')
    const viewerCopy = await link.reader.getStream('news')
    expect(viewerCopy).toMatchObject({ title: 'Evening News', poster, order: 42, isLive: true, status: 'live' })
    for (const [what, ms] of Object.entries(delays)) expect(ms, what).toBeLessThan(15_000)
    const sorted = [...series].sort((a, b) => a - b)
    console.log(`[bench] admin edit → viewer watch over a local testnet (ms): ${Object.entries(delays).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')}; ` +
      `20 title edits p50 ${sorted[10]!.toFixed(1)} / max ${sorted[19]!.toFixed(1)}`)
  })

  it('the built daemon serves the dashboard at / and answers /healthz and /metrics without a token', async () => {
    const page = await fetch(`${base}/`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/text\/html/)
    expect(await page.text()).toContain('<title>Arus panel</title>')
    expect((await fetch(`${base}/app.js`)).status).toBe(200)
    const health = await (await fetch(`${base}/healthz`)).json() as { up: boolean; swarmConnections: number }
    expect(health.up).toBe(true)
    expect(health.swarmConnections).toBeGreaterThanOrEqual(1)
    const metrics = await (await fetch(`${base}/metrics`)).text()
    expect(metrics).toMatch(/^arus_panel_swarm_connections [1-9]\d*$/m)
    expect(metrics).toContain('arus_panel_catalog_channels{class="live"} 1')
    expect((await fetch(`${base}/api/status`)).status).toBe(401)
  })

  it('refuses to boot with a non-loopback ADMIN_HOST, naming the variable', async () => {
    const env = panelEnv(tmpDir(undefined, 'panel-host-'), { BOOTSTRAP: testnet.bootstrapString, ADMIN_ENABLED: '1', ADMIN_HOST: '0.0.0.0' })
    const proc = spawnProcess(undefined, process.execPath, [PANEL_BIN, 'run'], { env })
    const exit = await proc.waitForExit(15_000)
    expect(exit.code).toBe(1)
    expect(proc.stderrText()).toContain('SERVICE_INVALID_CONFIG')
    expect(proc.stderrText()).toContain('ADMIN_HOST')
  })
})

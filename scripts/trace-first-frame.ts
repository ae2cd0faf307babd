/**
 * Traces a cold start in a real browser (issue 21, docs/architecture.md "First frame"): the
 * bench's stack with one broadcaster and one `test` channel of the bench's bitrates, a fresh
 * viewer (@arus/sdk) in this process for each round, and Debian Chromium playing its local URL
 * with hls.js at its default config. Per round it prints, in ms after resolve() returned: the
 * viewer's first playlist read, the page's manifest, the first fragment's request, the entry
 * lookup of its read-ahead, its first block, its last byte in the page, then hls.js's parse,
 * buffer append and first frame.
 *
 *   pnpm exec tsc -b && pnpm exec tsx scripts/trace-first-frame.ts [rounds=3] [rate=high] [aheads=3]
 *
 * `aheads`: readAheadSegments values (comma separated) to alternate over the rounds.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { createPlayer } from '../packages/sdk/dist/index.js'
import { FeedSession } from '../packages/sdk/dist/feed-session.js'
import { FeedReaderImpl } from '../packages/feed/dist/reader.js'
import { RATES, USER, startStack } from './bench/stack.js'

const ROUNDS = Math.min(20, Math.max(1, Number(process.argv[2] ?? 3)))
const RATE = (process.argv[3] ?? 'high') as keyof typeof RATES
/** Read-ahead segment counts to alternate over the rounds (the local server's readAheadSegments). */
const AHEADS = (process.argv[4] ?? '3').split(',').map(Number)
const frames = new Map<number, number[]>()
const now = (): number => performance.timeOrigin + performance.now()
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

const marks: Array<[string, number]> = []
const mark = (what: string): void => { marks.push([what, now()]) }
const hook = (proto: any, names: string[], prefix = ''): void => { for (const name of names) {
  const orig = proto[name]
  proto[name] = function (this: unknown, ...args: unknown[]) {
    const tag = prefix + (name === 'download' ? `${name} ${args[1]}` : typeof args[0] === 'string' ? `${name} ${args[0]}` : name)
    mark(`${tag} called`)
    const out = orig.apply(this, args)
    if (out instanceof Promise) out.then(() => mark(`${tag} done`), () => mark(`${tag} failed`))
    return out
  }
} }
hook(FeedSession.prototype, ['readAheadStart', 'playlist', 'download'])
hook(FeedReaderImpl.prototype, ['update', 'waitFor', 'readFile', 'ready'], 'reader.')

const PAGE = `<!doctype html><meta charset="utf-8"><body><script src="/hls.js"></script><script>
window.trace = (url) => new Promise((resolve, reject) => {
  const video = document.createElement('video')
  video.muted = true; video.autoplay = true; video.playsInline = true
  document.body.append(video)
  const hls = new Hls()
  const at = () => performance.timeOrigin + performance.now()
  const abs = (t) => performance.timeOrigin + t
  const m = {}
  const done = (err) => { clearTimeout(timer); hls.destroy(); video.remove(); err ? reject(err) : resolve(m) }
  const timer = setTimeout(() => done(new Error('no frame in 20 s')), 20000)
  hls.on(Hls.Events.MANIFEST_LOADED, (_e, d) => { m.manifestLoaded = at(); m.manifestReq = abs(d.stats.loading.start); m.manifestFirst = abs(d.stats.loading.first) })
  hls.on(Hls.Events.MANIFEST_PARSED, () => { m.manifestParsed = at() })
  hls.on(Hls.Events.FRAG_LOADING, (_e, d) => { if (m.fragLoading === undefined && d.frag.type === 'main') { m.fragLoading = at(); m.fragUrl = d.frag.url } })
  hls.on(Hls.Events.FRAG_LOADED, (_e, d) => { if (m.fragEnd === undefined && d.frag.type === 'main') { const s = d.frag.stats; m.fragReq = abs(s.loading.start); m.fragFirst = abs(s.loading.first); m.fragEnd = abs(s.loading.end); m.fragBytes = s.total } })
  hls.on(Hls.Events.FRAG_PARSED, (_e, d) => { if (m.fragParsed === undefined && d.frag.type === 'main') m.fragParsed = at() })
  hls.on(Hls.Events.FRAG_BUFFERED, (_e, d) => { if (m.fragBuffered === undefined && d.frag.type === 'main') m.fragBuffered = at() })
  hls.on(Hls.Events.ERROR, (_e, d) => { if (d.fatal) done(new Error('hls.js: ' + d.details)) })
  video.requestVideoFrameCallback(() => { m.frame = at(); done(null) })
  hls.attachMedia(video)
  hls.on(Hls.Events.MEDIA_ATTACHED, () => { m.start = at(); hls.loadSource(url); video.play().catch(() => {}) })
})
</script>`

const hlsJs = await readFile(join(import.meta.dirname, '../node_modules/hls.js/dist/hls.min.js'))
const web = createServer((req, res) => {
  if (req.url === '/hls.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(hlsJs)
  else res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE)
})
await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve))
const webPort = (web.address() as { port: number }).port
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required'] })
const page = await browser.newPage()
await page.goto(`http://127.0.0.1:${webPort}/`)
const store = await mkdtemp(join(tmpdir(), 'arus-trace-ff-'))
const stack = await startStack([{ name: 'rates', env: {}, channels: ['ch'], configs: { ch: RATES[RATE] } }])
try {
  await sleep(16_000) // the playlist fills
  const bootstrap = stack.testnet.bootstrap.map((b: { host: string; port: number }) => ({ host: b.host, port: b.port }))
  for (let r = 0; r < ROUNDS; r++) {
    const player = createPlayer({ panelPubKey: stack.panelKey, storeDir: join(store, `v${r}`), server: { readAheadSegments: AHEADS[r % AHEADS.length]!, allowOrigin: `http://127.0.0.1:${webPort}` }, swarm: { bootstrap } })
    await player.connect()
    await player.login(USER.name, USER.password)
    marks.length = 0
    const t0 = now()
    const { url } = await player.resolve('ch')
    const resolved = now()
    const blocks: Array<{ i: number; at: number; n: number }> = []
    const drive = (player as any).playback.session().reader.drive
    void drive.getBlobs().then((b: any) => { b.core.on('download', (i: number, n: number) => blocks.push({ i, at: now(), n })) })
    const m = await page.evaluate((u) => (window as any).trace(u), url) as Record<string, number | string>
    const rel = (x: unknown): string => (typeof x === 'number' ? (x - resolved).toFixed(0) : '-')
    const ahead = AHEADS[r % AHEADS.length]!
    frames.set(ahead, [...(frames.get(ahead) ?? []), Number(m.frame) - Number(m.start)])
    const seg = String(m.fragUrl).split('/').pop()
    const at = (what: string): number | undefined => marks.find(([w]) => w === what)?.[1]
    const entry = at(`download /${seg} done`)
    const first = blocks.find((b) => b.at > (entry ?? 0))?.at
    const segBlocks = blocks.filter((b) => b.at > (entry ?? 0) && b.at < Number(m.fragEnd) + 1)
    if (process.env.TRACE_MARKS === '1') console.log('  ' + marks.filter(([, t]) => t < Number(m.fragEnd)).map(([w, t]) => `${w} ${rel(t)}`).join('; '))
    console.log(`round ${r + 1} ahead ${ahead} ${seg} ${m.fragBytes}B | resolve ${(resolved - t0).toFixed(0)} | page ${rel(m.start)} playlist ${rel(at('playlist done'))} mfirst ${rel(m.manifestFirst)} | fragreq ${rel(m.fragReq)} entry ${rel(at(`download /${seg} called`))}-${rel(entry)} block1 ${rel(first)} fend ${rel(m.fragEnd)} (${segBlocks.length} blocks) | parsed ${rel(m.fragParsed)} buffered ${rel(m.fragBuffered)} frame ${rel(m.frame)} = ${(Number(m.frame) - Number(m.start)).toFixed(0)}`)
    await player.stop()
  }
  const median = (xs: number[]): number => { const v = [...xs].sort((a, b) => a - b); return v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2 }
  for (const [ahead, xs] of frames) console.log(`read-ahead ${ahead}: first frame median ${median(xs).toFixed(0)} ms (${xs.map((x) => x.toFixed(0)).join(' ')})`)
} finally {
  await stack.close().catch(() => {})
  await browser.close().catch(() => {})
  web.close()
  await rm(store, { recursive: true, force: true })
}

/**
 * First frame in a real browser (`pnpm bench`): Debian's Chromium (playwright-core, never a
 * downloaded browser) plays the viewer's local URL with hls.js from npm at its default
 * config, in a page served from 127.0.0.1 (another origin: the bench viewers opt in with the
 * SDK's server.allowOrigin, see viewer.mjs). Timed in the page: hls.loadSource() → manifest
 * parsed → first fragment loaded → first video frame presented (requestVideoFrameCallback).
 */
import { readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type Page } from 'playwright-core'

const root = fileURLToPath(new URL('../..', import.meta.url))
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** In-page: one cold hls.js start on `url`; resolves with the marks (ms after loadSource). */
const PAGE = `<!doctype html><meta charset="utf-8"><body><script src="/hls.js"></script><script>
window.firstFrame = (url, timeoutMs) => new Promise((resolve, reject) => {
  const video = document.createElement('video')
  video.muted = true
  video.autoplay = true
  video.playsInline = true
  document.body.append(video)
  const hls = new Hls()
  const marks = {}
  const done = (err) => { clearTimeout(timer); hls.destroy(); video.remove(); err ? reject(err) : resolve(marks) }
  const timer = setTimeout(() => done(new Error('no frame within ' + timeoutMs + ' ms')), timeoutMs)
  let t0 = 0
  hls.on(Hls.Events.MANIFEST_PARSED, () => { marks.manifestMs = performance.now() - t0 })
  hls.on(Hls.Events.FRAG_LOADED, (_e, d) => { if (marks.fragMs === undefined && d.frag.type === 'main') { marks.fragMs = performance.now() - t0; marks.fragBytes = d.frag.stats.total } })
  hls.on(Hls.Events.ERROR, (_e, d) => { if (d.fatal) done(new Error('hls.js: ' + d.details)) })
  video.requestVideoFrameCallback(() => { marks.frameMs = performance.now() - t0; done(null) })
  hls.attachMedia(video)
  hls.on(Hls.Events.MEDIA_ATTACHED, () => { t0 = performance.now(); hls.loadSource(url); video.play().catch(() => {}) })
})
</script>`

export interface FirstFrame { manifestMs: number; fragMs: number; fragBytes: number; frameMs: number }

export interface BrowserBench {
  firstFrame(url: string, timeoutMs?: number): Promise<FirstFrame>
  close(): Promise<void>
}

export async function startBrowser (): Promise<BrowserBench> {
  const hlsJs = await readFile(join(root, 'node_modules/hls.js/dist/hls.min.js'))
  const server: Server = createServer((req, res) => {
    if (req.url === '/hls.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(hlsJs)
    else if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE)
    else res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  let browser: Browser | null = null
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required'] })
    const page: Page = await browser.newPage()
    await page.goto(`http://127.0.0.1:${port}/`)
    await page.waitForFunction(() => typeof (window as any).Hls === 'function' && (window as any).Hls.isSupported(), undefined, { timeout: 10_000 })
    const b = browser
    return {
      firstFrame: (url, timeoutMs = 20_000) => page.evaluate(([u, t]) => (window as any).firstFrame(u, t), [url, timeoutMs] as const) as Promise<FirstFrame>,
      async close () { await b.close().catch(() => {}); server.close() }
    }
  } catch (err) {
    await browser?.close().catch(() => {})
    server.close()
    throw err
  }
}

import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanupAll, createTestnet, freePort, startLibrary, startPanel, tmpDir, waitFor, type LibraryHandle, type Testnet } from '@arus/testkit'
import { makeAudioOnly, makeMedia, makeOneFrame, makeUndecodable, startEndlessStream } from './media.js'

// Spec 2 "Library facts", issue point 4, against the built library and real ffmpeg: every bad
// input ends in state 'error' with a sentence an operator can act on and disturbs no other
// title; shell metacharacters in a path are just a path; inputs that could name another ffmpeg
// protocol are refused at the API; /healthz keeps answering during a transcode.

const ctx = { onTestFinished: () => {} }
let testnet: Testnet
let library: LibraryHandle
let media: string
/** A directory and file name that would run `touch PWNED` if anything passed them to a shell. */
const SHELL_NAME = "my film $(touch PWNED); rm -rf x & 'quoted'"
const inputs: Record<string, string> = {}

/** Each bad input, its title id and what its error must say. */
const BAD: Array<{ id: string; what: string; error: (input: string) => RegExp }> = [
  { id: 'bad.missing', what: 'a missing file', error: (i) => new RegExp(`^input file not found: ${escapeRegExp(i)}$`) },
  { id: 'bad.url', what: 'a URL nobody answers (closed port)', error: () => /^cannot read the URL \(.*connection refused.*\)$/i },
  { id: 'bad.text', what: 'a text file', error: () => /^not a readable media file \(.*Invalid data found when processing input\)$/ },
  { id: 'bad.audio', what: 'an audio-only file', error: () => /^not a video: the input has no video stream$/ },
  { id: 'bad.zero', what: 'a single-frame file (zero duration)', error: () => /^the input has zero duration$/ },
  { id: 'bad.live', what: 'an endless live MPEG-TS over HTTP', error: () => /^the input has no finite duration/ },
  { id: 'bad.still', what: 'a still image (PNG)', error: () => /^the input is a still image, not a video$/ },
  { id: 'bad.codec', what: 'a video codec ffmpeg cannot decode (AVS2)', error: () => /^ffmpeg failed: (.* — )?Decoder \(codec avs2\) not found for input stream/ }
]

beforeAll(async () => {
  testnet = await createTestnet(ctx)
  library = await startLibrary(ctx, { bootstrap: testnet.bootstrapString })
  media = tmpDir(ctx, 'arus-media-')
  const shellDir = join(media, SHELL_NAME)
  await mkdir(shellDir)
  const text = join(media, 'notes.mp4')
  await writeFile(text, 'these are the director\'s notes, not a film\n'.repeat(50))
  const still = join(media, 'poster.png')
  await new Promise<void>((resolve, reject) => {
    const p = spawn('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=64x64:duration=1', '-frames:v', '1', still], { stdio: 'ignore' })
    p.on('close', (code) => { if (code === 0) resolve(); else reject(new Error(`ffmpeg exited ${String(code)}`)) })
  })
  const [good, shell, audio, zero, codec, live, port, odd] = await Promise.all([
    makeMedia(media, 'h264-aac', 4),
    makeMedia(shellDir, 'h264-aac', 4, `${SHELL_NAME}.mp4`),
    makeAudioOnly(media, 4),
    makeOneFrame(media),
    makeUndecodable(media, 4),
    startEndlessStream(ctx),
    freePort(),
    makeMedia(media, 'mpeg2-mp2', 4, 'odd-size.mpg', '321x241')
  ])
  Object.assign(inputs, {
    'bad.missing': '/nonexistent/x.mp4',
    'bad.url': `http://127.0.0.1:${port}/x.mp4`,
    'bad.text': text,
    'bad.audio': audio,
    'bad.zero': zero,
    'bad.live': live.url,
    'bad.codec': codec,
    'bad.still': still,
    'good.film': good,
    'good.shell': shell,
    'good.odd': odd
  })
  // One queue (INGEST_CONCURRENCY 1): the good title sits between the bad ones.
  for (const id of ['bad.missing', 'bad.url', 'bad.text', 'good.film', 'bad.audio', 'bad.zero', 'bad.live', 'bad.still', 'bad.codec', 'good.shell', 'good.odd']) {
    await library.api('POST', '/api/titles', { id, input: inputs[id] })
  }
}, 120_000)

afterAll(async () => { await cleanupAll() }, 60_000)

describe('library bad inputs', () => {
  it.each(BAD)('$id: $what ends in error with a sentence to act on', async ({ id, error }) => {
    const view = await library.waitTitle(id, { state: 'error', timeoutMs: 90_000 })
    expect(view.error).toMatch(error(inputs[id]!))
    expect(view).toMatchObject({ state: 'error', feedKey: null, feedGeneration: null, segments: 0, bytes: 0, ingest: null })
    const logs = await library.api('GET', `/api/titles/${id}/logs?lines=400`)
    expect(logs.lines.at(-1)).toContain(`error: ${String(view.error)}`)
  }, 100_000)

  it('a good title queued among the bad ones reaches ready, and every bad title stays in error', async () => {
    const good = await library.waitTitle('good.film', { timeoutMs: 90_000 })
    expect(good).toMatchObject({ state: 'ready', error: null, feedKey: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect(good.segments).toBeGreaterThan(0)
    await library.waitTitle('good.shell', { timeoutMs: 90_000 })
    await library.waitTitle('good.odd', { timeoutMs: 90_000 })
    const all = (await library.api('GET', '/api/titles')).titles as Array<{ id: string; state: string }>
    expect(Object.fromEntries(all.map((t) => [t.id, t.state]))).toEqual({
      ...Object.fromEntries(BAD.map((b) => [b.id, 'error'])), 'good.film': 'ready', 'good.shell': 'ready', 'good.odd': 'ready'
    })
    const health = await library.call('GET', '/healthz')
    expect(health.body).toMatchObject({ ok: true, titles: BAD.length + 3, ready: 3, error: BAD.length, queued: 0, ingesting: 0 })
  }, 100_000)

  it('a path with spaces and shell metacharacters ingests to ready and runs nothing', async () => {
    const view = await library.waitTitle('good.shell', { timeoutMs: 90_000 })
    expect(view.input).toBe(inputs['good.shell'])
    expect(view.segments).toBeGreaterThan(0)
    // `touch PWNED` would have run in the daemon's cwd (the test's), or beside the file.
    for (const dir of [process.cwd(), media, join(media, SHELL_NAME), library.dataDir, tmpdir(), homedir()]) {
      expect(existsSync(join(dir, 'PWNED')), dir).toBe(false)
    }
    expect(await findNamed(media, 'PWNED')).toEqual([])
    expect(await findNamed(library.dataDir, 'PWNED')).toEqual([])
    expect(existsSync(join(media, SHELL_NAME, `${SHELL_NAME}.mp4`))).toBe(true)
  }, 100_000)

  it('an odd-sized source (321x241 MPEG-2, which libx264 cannot take as is) transcodes to ready', async () => {
    const view = await library.waitTitle('good.odd', { timeoutMs: 90_000 })
    expect(view.segments).toBeGreaterThan(0)
    expect(view.durationSec).toBeCloseTo(4, 0)
    expect((await library.api('GET', '/api/titles/good.odd/logs?lines=400')).lines.join('\n')).toContain('convert: transcode')
  }, 100_000)

  it('refuses at the API (400) inputs that are not an absolute path or an http(s) URL, or hold control characters', async () => {
    const refused = [
      'films/x.mp4', './x.mp4', '~/x.mp4', 'file:/etc/passwd', 'file:///etc/passwd', 'concat:/a.mp4|/b.mp4',
      'subfile,,start,0,end,0,,:/etc/passwd', 'pipe:0', 'data:video/mp4;base64,AAAA', 'ftp://127.0.0.1/x.mp4',
      '/tmp/a\nb.mp4', '/tmp/a\u0000b.mp4', '/tmp/a\u001bb.mp4', 'http://127.0.0.1/x.mp4\r\nX-Injected: 1', 'http:// spaced.example/x.mp4', ''
    ]
    for (const [i, input] of refused.entries()) {
      const r = await library.call('POST', '/api/titles', { id: `refused.${i}`, input })
      expect(r.status, JSON.stringify(input)).toBe(400)
      expect(r.body.error.code).toBe('SERVICE_VALIDATION_FAILED')
      expect(r.body.error.message).toContain('input')
      expect((await library.call('GET', `/api/titles/refused.${i}`)).status).toBe(404)
    }
    for (const input of ['concat:/a.mp4|/b.mp4', 'films/x.mp4', '/tmp/a\tb.mp4']) {
      expect((await library.call('PATCH', '/api/titles/good.film', { input })).status).toBe(400)
      expect((await library.call('POST', '/api/titles/good.film/ingest', { input })).status).toBe(400)
    }
    expect((await library.api('GET', '/api/titles/good.film')).input).toBe(inputs['good.film'])
  })

  it('/healthz answers during a transcode (20 calls, every one 200 with ingesting: 1; max latency printed)', async () => {
    await library.waitTitle('good.odd', { timeoutMs: 90_000 }) // the queue is empty: this transcode runs alone
    const long = await makeMedia(media, 'h264-aac', 60, 'long-640x360.mp4', '640x360')
    await library.api('POST', '/api/titles', { id: 'long.transcode', input: long, mode: 'transcode', hlsTime: 2 })
    // Past the first percents, libx264 is encoding flat out on both cores.
    await waitFor(async () => {
      const v = await library.api('GET', '/api/titles/long.transcode')
      return v.ingest?.phase === 'convert' && v.ingest.pct >= 3
    }, { timeoutMs: 60_000, intervalMs: 50, message: 'transcode running' })
    const latencies: number[] = []
    for (let i = 0; i < 20; i++) {
      const started = performance.now()
      const res = await fetch(`${library.controlUrl!}/healthz`, { signal: AbortSignal.timeout(10_000) })
      const body = await res.json() as { ingesting: number }
      latencies.push(performance.now() - started)
      expect(res.status).toBe(200)
      expect(body.ingesting).toBe(1)
    }
    const after = await library.api('GET', '/api/titles/long.transcode')
    expect(after).toMatchObject({ state: 'ingesting', ingest: { phase: 'convert' } }) // all 20 landed mid-transcode
    const max = Math.max(...latencies)
    const median = [...latencies].sort((a, b) => a - b)[10]!
    console.log(`library /healthz during a 640x360 transcode: 20 calls, max ${max.toFixed(1)} ms, median ${median.toFixed(1)} ms, convert at ${String(after.ingest.pct)}%`)
  }, 100_000)
})

describe('a failed re-ingest', () => {
  it('keeps the previous generation as the title feed: same feedKey, still registered, and reopened (seeded, registered) after a restart', async (t) => {
    const panel = await startPanel(t, { testnet })
    const linked = await startLibrary(t, { panel, scopes: 'vod.*' })
    await linked.api('POST', '/api/titles', { id: 'vod.kept', input: inputs['good.film'], title: 'Kept' })
    const first = await linked.waitTitle('vod.kept')
    await linked.api('POST', '/api/titles/vod.kept/ingest', { input: '/nonexistent/replacement.mp4' })
    const failed = await linked.waitTitle('vod.kept', { state: 'error' })
    expect(failed).toMatchObject({ error: 'input file not found: /nonexistent/replacement.mp4', feedKey: first.feedKey, feedGeneration: first.feedGeneration, registered: true })
    const record = async () => (await panel.api('GET', '/api/streams')).streams.find((s: { id: string }) => s.id === 'vod.kept')
    expect(await record()).toMatchObject({ status: 'available', feedKey: first.feedKey })

    await linked.stop()
    await linked.start()
    // Reopened at boot like a ready title: seeded and registered again with the same feed.
    await waitFor(async () => (await linked.api('GET', '/api/titles/vod.kept')).registered === true, { timeoutMs: 30_000, intervalMs: 200, message: 'registered after the restart' })
    expect(await linked.api('GET', '/api/titles/vod.kept')).toMatchObject({ state: 'error', feedKey: first.feedKey, registerError: null })
    expect(await record()).toMatchObject({ status: 'available', feedKey: first.feedKey })
  }, 100_000)
})

function escapeRegExp (s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** Paths under `dir` whose last part is `name`. */
async function findNamed (dir: string, name: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries.filter((e) => e.name === name).map((e) => join(e.parentPath, e.name))
}

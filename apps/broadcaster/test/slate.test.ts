import { execFile } from 'node:child_process'
import { mkdir, readdir, readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { basename, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanupAll, createTestnet, freePort, registerTeardown, tmpDir, waitFor } from '@arus/testkit'
import { apiClient, broadcasterEnv, cli, LIGHT, spawnBroadcaster, type SpawnedBroadcaster } from './helpers.js'

// Done means (issue 4): a pull input pointing at a dead URL is slated after SLATE_AFTER
// failures and the feed keeps advancing; when the source comes back the slate drops. The
// source is HLS served by an HTTP server this test starts and stops.

const run = promisify(execFile)
let api: ReturnType<typeof apiClient>
let bc: SpawnedBroadcaster
let hlsDir: string
let port: number
let server: Server | null = null
const SOURCE = () => `http://127.0.0.1:${port}/index.m3u8`

function startSource (): Promise<void> {
  server = createServer((req, res) => {
    readFile(join(hlsDir, basename(req.url ?? '/'))).then((b) => res.end(b), () => { res.statusCode = 404; res.end() })
  })
  return new Promise((resolve) => server!.listen(port, '127.0.0.1', resolve))
}

async function stopSource (): Promise<void> {
  const s = server
  server = null
  if (!s) return
  s.closeAllConnections()
  await new Promise((resolve) => s.close(resolve))
}

const view = async () => (await api.get('/api/channels/pull1')).body
const sequence = async () => (await view()).playlist?.lastSequence ?? -1
const incidents = async () => (await api.get('/api/incidents')).body.incidents as Array<{ kind: string; ok?: boolean; endedAt: number | null }>

beforeAll(async () => {
  const testnet = await createTestnet()
  const work = tmpDir(undefined, 'bc-slate-')
  hlsDir = join(work, 'hls')
  port = await freePort()
  registerTeardown(undefined, stopSource)
  // 40 s of 320x180 H.264 / 44.1 kHz AAC as finished HLS: what the source serves once it is "back".
  await mkdir(hlsDir)
  await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=25:duration=40', '-f', 'lavfi', '-i', 'sine=duration=40:sample_rate=44100',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '25', '-c:a', 'aac', '-shortest', '-f', 'hls', '-hls_time', '1', '-hls_list_size', '0', '-hls_playlist_type', 'vod',
    '-hls_segment_filename', join(hlsDir, 's%d.ts'), join(hlsDir, 'index.m3u8')], { timeout: 60_000 })
  const env = broadcasterEnv(join(work, 'bc'), {
    BOOTSTRAP: testnet.bootstrapString,
    CONTROL_ENABLED: '1',
    CONTROL_PORT: String(await freePort()),
    SLATE_AFTER: '2',
    SLATE_RETRY_MS: '1000'
  })
  expect((await cli(env, ['add-admin', 'op'], 'pw\n')).code).toBe(0)
  bc = await spawnBroadcaster(undefined, env)
  api = await apiClient(bc.url).login('op', 'pw')
}, 90_000)

afterAll(async () => { await cleanupAll() }, 30_000)

describe('watchdog and slate', () => {
  it('slates a dead pull source after SLATE_AFTER failures, keeps the feed advancing, and drops the slate when the source is back', async () => {
    expect((await api.post('/api/channels', { id: 'pull1', input: SOURCE(), hlsTime: 1, hlsListSize: 4 })).status).toBe(201)
    await api.post('/api/channels/pull1/start')
    const slated = await waitFor(async () => { const v = await view(); return v.slate.slated ? v : null }, { timeoutMs: 30_000, message: 'slate on' })
    // The state still reads up: monitoring has to look at slate.slated.
    expect(slated).toMatchObject({ state: 'up', running: true, slate: { slated: true, failures: 2 } })
    expect(slated.watchdog.failures).toEqual([{ source: SOURCE(), failures: 2 }])

    // The slate feeds the channel: the media sequence keeps growing.
    const s0 = await sequence()
    await waitFor(async () => (await sequence()) >= s0 + 2, { timeoutMs: 15_000, message: 'the feed advancing on the slate' })
    // Every SLATE_RETRY_MS the source is probed; while it is down the slate stays.
    await waitFor(async () => (await incidents()).some((i) => i.kind === 'slate-retry' && i.ok === false), { timeoutMs: 15_000, message: 'a failed slate retry' })
    expect((await view()).slate.slated).toBe(true)

    await startSource()
    await waitFor(async () => { const v = await view(); return !v.slate.slated && v.state === 'up' }, { timeoutMs: 20_000, message: 'slate dropped' })
    const s1 = await sequence()
    await waitFor(async () => (await sequence()) >= s1 + 2, { timeoutMs: 15_000, message: 'the real source feeding' })
    const v = await view()
    expect(v.detectedProfile).toEqual({ codec: 'h264', width: 320, height: 180 })

    const log = await incidents()
    expect(log.some((i) => i.kind === 'slate-on')).toBe(true)
    expect(log.some((i) => i.kind === 'slate-retry' && i.ok === true)).toBe(true)
    expect(log.some((i) => i.kind === 'slate-off')).toBe(true)
    expect(log.find((i) => i.kind === 'source-outage')!.endedAt).not.toBeNull()
  }, 90_000)

  it('moves to the next fallback URL after SLATE_AFTER failures of the pull URL', async () => {
    const dead = `http://127.0.0.1:${await freePort()}/gone.m3u8`
    await api.post('/api/channels', { id: 'fb1', input: { kind: 'pull', url: dead, fallbacks: [SOURCE()] }, hlsTime: 1 })
    await api.post('/api/channels/fb1/start')
    const v = await waitFor(async () => { const x = (await api.get('/api/channels/fb1')).body; return x.state === 'up' ? x : null }, { timeoutMs: 30_000, message: 'fb1 up on its fallback' })
    expect(v.watchdog.source).toBe(SOURCE())
    expect(v.slate.slated).toBe(false)
    const logs = (await api.get('/api/channels/fb1/logs')).body.lines.map((l: { line: string }) => l.line).join('\n')
    expect(logs).toContain(`watchdog: 2 consecutive failures, trying ${SOURCE()}`)
    expect(logs.match(/probe of .*gone\.m3u8 failed/g)).toHaveLength(2)
    await api.post('/api/channels/fb1/stop')
  }, 40_000)

  it('slates again, matched to the profile it saw, when the source goes away', async () => {
    await stopSource()
    const v = await waitFor(async () => { const x = await view(); return x.slate.slated ? x : null }, { timeoutMs: 40_000, message: 'slate on again' })
    expect(v.slate.file).toMatch(/slate-320x180-25fps-44100\.ts$/)
    expect(v.state).toBe('up')
    const metrics = (await api.get('/metrics')).body
    expect(metrics).toContain('arus_broadcaster_channels_slated 1')
  }, 60_000)

  it('keeps the log ring across respawns and clears it on an operator start', async () => {
    const before = (await api.get('/api/channels/pull1/logs?lines=400')).body
    expect(before.restarts).toBeGreaterThanOrEqual(3)
    const text = before.lines.map((l: { line: string }) => l.line).join('\n')
    expect(text.match(/watchdog: starting ffmpeg|probe of .* failed/g)!.length).toBeGreaterThanOrEqual(3)
    expect((await api.get('/api/channels/pull1/logs?lines=2')).body.lines).toHaveLength(2)
    await api.post('/api/channels/pull1/stop')
    await api.post('/api/channels/pull1/start')
    const after = (await api.get('/api/channels/pull1/logs')).body
    expect(after.lines[0].line).toMatch(/^channel: starting generation/)
    expect(after.lines.some((l: { line: string }) => l.line === 'channel: stopped')).toBe(false)
    await api.post('/api/channels/pull1/stop')
  }, 30_000)
})

/** Pids of the live processes whose parent is `ppid` (from /proc). */
async function childrenOf (ppid: number): Promise<number[]> {
  const out: number[] = []
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const status = await readFile(`/proc/${name}/status`, 'utf8').catch(() => '')
    if (new RegExp(`^PPid:\\s+${ppid}$`, 'm').test(status)) out.push(Number(name))
  }
  return out
}

describe('a broadcaster that dies', () => {
  it('takes its ffmpeg processes with it, even on SIGKILL', async () => {
    await api.post('/api/channels', { id: 'k1', input: 'test', ...LIGHT })
    await api.post('/api/channels/k1/start')
    await waitFor(async () => (await api.get('/api/channels/k1')).body.state === 'up', { timeoutMs: 20_000, message: 'k1 up' })
    const pid = bc.proc.child.pid!
    const ffmpegs = await childrenOf(pid)
    expect(ffmpegs).toHaveLength(1)
    bc.proc.child.kill('SIGKILL')
    await bc.proc.waitForExit(10_000)
    await waitFor(async () => {
      const alive = await Promise.all(ffmpegs.map((p) => readFile(`/proc/${p}/status`, 'utf8').then(() => true, () => false)))
      return alive.every((a) => !a)
    }, { timeoutMs: 10_000, message: 'the orphaned ffmpeg gone' })
  }, 40_000)
})

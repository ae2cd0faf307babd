import { execFile } from 'node:child_process'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { getPriority, tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomBytes } from '@arus/crypto'
import { openFeedReader } from '@arus/feed'
import { childPriorities, cleanupAll, createTestnet, freePort, linkToPanel, startPanel, tmpDir, tmpStore, waitFor, withTimeout, type PanelHandle, type PanelLink, type Testnet } from '@arus/testkit'
import { apiClient, broadcasterEnv, cli, LIGHT, spawnBroadcaster, type SpawnedBroadcaster } from './helpers.js'

// Done means (issue 4): a `test` channel started through the control API registers with a
// real panel; a separate peer holding only feedKey + stream key replicates the feed and gets
// H.264/AAC segments, a peer without the key cannot decode them; stop flips isLive false; a
// changed input registers a new feedKey; rotate works in disk mode. Panel and broadcaster
// run as separate processes on a local testnet, ffmpeg for real.

const run = promisify(execFile)
const noTeardown = { onTestFinished: () => {} }

let testnet: Testnet
let bEnv: Record<string, string>
let panelKey: string
let panel: PanelHandle
let bc: SpawnedBroadcaster
let link: PanelLink
let api: ReturnType<typeof apiClient>
let work: string
let feedKey1: string

/** The live catalog record of `id` as a viewer's replica sees it (null when absent). */
async function record (id: string) {
  await link.reader.update({ wait: true })
  const r = await link.reader.getStream(id)
  return r?.type === 'live' ? r : null
}

async function streamKey (id: string): Promise<Uint8Array> {
  const file = JSON.parse(await readFile(join(panel.dataDir, 'private', 'stream-keys.json'), 'utf8'))
  return Buffer.from(file.keys[id], 'hex')
}

/** Codec names ffprobe finds in `bytes` ([] when it cannot read them). */
async function codecs (bytes: Uint8Array, name: string): Promise<string[]> {
  const file = join(work, name)
  await writeFile(file, bytes)
  try {
    const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name', '-of', 'csv=p=0', file], { timeout: 15_000 })
    return [...new Set(stdout.split('\n').map((s) => s.trim()).filter(Boolean))].sort()
  } catch {
    return []
  }
}

/** A separate peer on the testnet replicating the feed. */
async function peer (feedKey: string, encryptionKey: Uint8Array) {
  const store = tmpStore(noTeardown)
  const swarm = testnet.createSwarm()
  swarm.on('connection', (conn) => store.replicate(conn))
  const reader = openFeedReader({ store, feedKey: Buffer.from(feedKey, 'hex'), encryptionKey })
  await reader.ready()
  swarm.join(reader.discoveryKey, { server: false, client: true })
  return { store, swarm, reader }
}

const view = async (id: string) => (await api.get(`/api/channels/${id}`)).body

beforeAll(async () => {
  testnet = await createTestnet()
  work = tmpDir(undefined, 'bc-live-')
  panel = await startPanel(undefined, { testnet, dataDir: join(work, 'panel'), adminApi: false })
  panelKey = panel.panelKey
  const site = await panel.addPublisher('site1', 'live*')
  link = await linkToPanel(noTeardown, testnet, panelKey)
  bEnv = broadcasterEnv(join(work, 'bc'), {
    BOOTSTRAP: testnet.bootstrapString,
    PANEL_PUBKEY: panelKey,
    PUBLISHER_KEY: site.secretKey,
    PUBLISHER_NAME: 'site1',
    CONTROL_ENABLED: '1',
    CONTROL_PORT: String(await freePort()),
    REGISTER_HEARTBEAT_SEC: '5',
    ANALYTICS_SAMPLE_SEC: '1',
    ROTATE_GRACE_SEC: '3',
    LOG_LEVEL: 'debug'
  })
  expect((await cli(bEnv, ['add-admin', 'op'], 'pw-op\n')).code).toBe(0)
  bc = await spawnBroadcaster(undefined, bEnv)
  api = await apiClient(bc.url).login('op', 'pw-op')
  // A short H.264/AAC file for the changed-input case (copied, not encoded).
  await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=25:duration=4', '-f', 'lavfi', '-i', 'sine=duration=4',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '25', '-c:a', 'aac', '-shortest', join(work, 'loop.mp4')], { timeout: 30_000 })
}, 90_000)

afterAll(async () => { await cleanupAll() }, 30_000)

describe('broadcaster with a real panel', () => {
  it('registers a test channel started through the control API (isLive true, feedKey matches)', async () => {
    expect((await api.post('/api/channels', { id: 'live1', title: 'Live One', category: ['News'], input: 'test', ...LIGHT })).status).toBe(201)
    const started = await api.post('/api/channels/live1/start')
    expect(started.status).toBe(200)
    feedKey1 = started.body.feedKey
    expect(feedKey1).toMatch(/^[0-9a-f]{64}$/)
    const rec = await waitFor(async () => {
      const r = await record('live1')
      return r?.isLive === true && r.feedKey === feedKey1 && r.blobsKey ? r : null
    }, { timeoutMs: 30_000, message: 'live1 registered' })
    expect(rec).toMatchObject({ title: 'Live One', category: ['News'], origin: 'site1', status: 'live' })
    await waitFor(async () => (await view('live1')).registered === true, { timeoutMs: 10_000, message: 'registered flag' })
    expect(await view('live1')).toMatchObject({ state: 'up', running: true, registerError: null })
  }, 60_000)

  it("runs the channel's ffmpeg, every thread of it, at ENCODER_NICE (10 by default) while the daemon keeps the default priority", async () => {
    const daemon = bc.proc.child.pid!
    // The encoder is up (the channel registered above); its threads start with it.
    const encoders = await waitFor(() => {
      const found = childPriorities(daemon, ['ffmpeg'])
      return found.length === 1 && found[0]!.threads.length > 1 ? found : null
    }, { timeoutMs: 10_000, message: "the channel's ffmpeg and its threads" })
    // nice adds to the niceness the daemon runs at (this suite's own, 0 unless it runs niced).
    const base = Number((await readFile(`/proc/${daemon}/stat`, 'utf8')).split(') ')[1]!.split(' ')[16])
    expect(base).toBe(getPriority())
    const want = Math.min(19, base + 10)
    expect(encoders[0]!.threads.every((nice) => nice === want), `niceness of each thread: ${encoders[0]!.threads.join(', ')}`).toBe(true)
  })

  it('lets a peer holding feedKey + stream key replicate H.264/AAC segments; without the key they do not decode', async () => {
    const key = await streamKey('live1')
    const withKey = await peer(feedKey1, key)
    const playlist = await withKey.reader.playlist({ timeoutMs: 20_000 })
    expect(playlist.segments.length).toBeGreaterThan(0)
    const uri = playlist.segments[playlist.segments.length - 1]!.uri
    const bytes = await withKey.reader.readFile(`/${uri}`, { timeoutMs: 20_000 })
    expect(await codecs(bytes, 'clear.ts')).toEqual(['aac', 'h264'])

    // The same replication with a wrong key: the drive's metadata does not even decode.
    const wrong = await peer(feedKey1, randomBytes(32))
    const err = await wrong.reader.playlist({ timeoutMs: 10_000 }).then(() => null, (e: { code?: string }) => e)
    expect(err?.code).toBe('FEED_DECRYPT_FAILED')

    // A keyless mirror can fetch the ciphertext blocks (the blob core by blobsKey), but not decode them.
    const rec = await record('live1')
    const keyless = tmpStore(noTeardown)
    const raw = keyless.get({ key: Buffer.from(rec!.blobsKey!, 'hex') })
    await raw.ready()
    const s = testnet.createSwarm()
    s.on('connection', (conn) => keyless.replicate(conn))
    s.join(withKey.reader.discoveryKey, { server: false, client: true })
    await waitFor(() => raw.update({ wait: true }).then(() => raw.length > 0), { timeoutMs: 20_000, message: 'ciphertext replicated' })
    const cipher = await withTimeout(raw.get(0) as Promise<Buffer>, 20_000, 'a ciphertext block')
    expect(cipher.byteLength).toBeGreaterThan(1000)
    // Random bytes can fool ffprobe into a stray 'text' stream now and then: what matters is no audio or video.
    expect((await codecs(cipher, 'cipher.ts')).filter((c) => c !== 'text')).toEqual([])

    // The audience shows in /metrics and the analytics (samples every second here).
    await waitFor(async () => (await api.get('/metrics')).body.match(/arus_broadcaster_channel_peers\{stream_id="live1"\} ([1-9])/), { timeoutMs: 10_000, message: 'peers metric' })
    const analytics = (await api.get('/api/analytics?days=1')).body
    const hours = analytics.days[0].hours
    expect(Object.values(hours).some((h: any) => h.channels.live1?.peers.samples > 0)).toBe(true)
    await waitFor(async () => /arus_broadcaster_channel_egress_bytes_total\{stream_id="live1"\} [1-9]/.test((await api.get('/metrics')).body), { timeoutMs: 10_000, message: 'egress metric' })
  }, 60_000)

  it('re-registers on the heartbeat without making the panel write', async () => {
    await link.reader.update({ wait: true })
    const core = link.reader.bee.core
    const before = { length: core.length, byteLength: core.byteLength }
    const seen = bc.proc.stdoutLines().filter((l) => l.includes('"event":"register.unchanged"') && l.includes('"streamId":"live1"')).length
    await waitFor(() => bc.proc.stdoutLines().filter((l) => l.includes('"event":"register.unchanged"') && l.includes('"streamId":"live1"')).length > seen,
      { timeoutMs: 15_000, message: 'a heartbeat register' })
    await link.reader.update({ wait: true })
    expect({ length: core.length, byteLength: core.byteLength }).toEqual(before)
  }, 30_000)

  it('rotates a disk channel to a new feedKey while ffmpeg keeps running', async () => {
    const before = await view('live1')
    const rotated = await api.post('/api/channels/live1/rotate')
    expect(rotated.status).toBe(200)
    const feedKey2 = rotated.body.feedKey
    expect(feedKey2).not.toBe(feedKey1)
    expect(rotated.body.generation).toBe(before.generation + 1)
    await waitFor(async () => (await record('live1'))?.feedKey === feedKey2, { timeoutMs: 20_000, message: 'rotated feedKey in the catalog' })
    // Same ffmpeg run (no restart), and the new generation receives segments.
    await waitFor(async () => (await view('live1')).playlist.segments >= 2, { timeoutMs: 15_000, message: 'segments in the new generation' })
    const after = await view('live1')
    expect(after).toMatchObject({ state: 'up', ffmpegUp: true })
    expect(after.watchdog.restarts).toBe(before.watchdog.restarts)
    const key = await streamKey('live1')
    const reader = (await peer(feedKey2, key)).reader
    expect((await reader.playlist({ timeoutMs: 20_000 })).segments.length).toBeGreaterThan(0)
    // The retired generation seeds through ROTATE_GRACE_SEC (3 s here), then its cores are purged.
    await bc.proc.waitForLine(new RegExp(`"event":"feed.purged".*"feedKey":"${feedKey1}"`), 20_000)
    const identity = JSON.parse(await readFile(join(bEnv.DATA_DIR!, 'private', 'feed-keys.json'), 'utf8')).channels.live1
    expect(identity).toMatchObject({ feedKey: feedKey2, retired: [] })
    feedKey1 = feedKey2
  }, 60_000)

  it('stop flips isLive false; a changed input then registers a new feedKey', async () => {
    const stopped = await api.post('/api/channels/live1/stop')
    expect(stopped.body).toMatchObject({ running: false, state: 'stopped' })
    await waitFor(async () => (await record('live1'))?.isLive === false, { timeoutMs: 20_000, message: 'isLive false' })
    expect((await record('live1'))!.feedKey).toBe(feedKey1)

    const patched = await api.patch('/api/channels/live1', { input: { kind: 'file', path: join(work, 'loop.mp4') }, transcode: null })
    expect(patched.body).toMatchObject({ input: { kind: 'file' }, transcode: null, feedKey: feedKey1 })
    const started = await api.post('/api/channels/live1/start')
    const feedKey3 = started.body.feedKey
    expect(feedKey3).not.toBe(feedKey1)
    await waitFor(async () => {
      const r = await record('live1')
      return r !== null && r.feedKey === feedKey3 && r.isLive
    }, { timeoutMs: 20_000, message: 'new feedKey registered' })
    await waitFor(async () => (await view('live1')).state === 'up', { timeoutMs: 20_000, message: 'file input up' })
    const logs = (await api.get('/api/channels/live1/logs')).body.lines.map((l: { line: string }) => l.line).join('\n')
    expect(logs).toContain('video copy')
    feedKey1 = feedKey3
  }, 60_000)

  it('gives a ram channel a fresh feed identity at each start (same stream key)', async () => {
    expect((await api.post('/api/channels', { id: 'live-ram', input: 'udp', buffer: 'ram' })).status).toBe(201)
    const keys: string[] = []
    for (let i = 0; i < 2; i++) {
      const started = (await api.post('/api/channels/live-ram/start')).body
      keys.push(started.feedKey)
      await waitFor(async () => (await record('live-ram'))?.feedKey === started.feedKey, { timeoutMs: 20_000, message: `ram start ${i}` })
      await api.post('/api/channels/live-ram/stop')
    }
    expect(keys[0]).not.toBe(keys[1])
    const ramDirs = (await readdir(tmpdir())).filter((d) => d.startsWith('arus-ram-live-ram-'))
    expect(ramDirs).toEqual([]) // the temp store is gone at stop
  }, 40_000)

  it("surfaces the panel's rejection verbatim as registerError", async () => {
    expect((await api.post('/api/channels', { id: 'other1', input: 'rtmp' })).status).toBe(201)
    await api.post('/api/channels/other1/start')
    await waitFor(async () => (await view('other1')).registerError === 'out-of-scope', { timeoutMs: 20_000, message: 'out-of-scope' })
    const v = await view('other1')
    expect(v).toMatchObject({ registered: false, state: 'waiting-input', ingest: { pushUrl: expect.stringMatching(/^rtmp:\/\/127\.0\.0\.1:\d+\/live\/other1$/) } })
    expect(await record('other1')).toBeNull()
    await api.post('/api/channels/other1/stop')
  }, 30_000)

  it("reads 'no panel connection for Ns' while the panel is down, and re-registers when it is back", async () => {
    await panel.stop()
    await waitFor(async () => /^no panel connection for \d+s$/.test((await view('live1')).registerError ?? ''), { timeoutMs: 20_000, message: 'stranded registration' })
    // A change made while the panel is away reaches it after its restart.
    await api.post('/api/channels/live1/stop')
    await panel.start()
    link = await linkToPanel(noTeardown, testnet, panelKey)
    await waitFor(async () => (await record('live1'))?.isLive === false, { timeoutMs: 30_000, message: 'isLive false after the panel restart' })
    await waitFor(async () => {
      const v = await view('live1')
      return v.registered && v.registerError === null
    }, { timeoutMs: 20_000, message: 'registered again' })
  }, 60_000)

  it('resumes desired-running channels at boot with the same feed identity', async () => {
    await api.post('/api/channels/live1/start')
    await waitFor(async () => (await record('live1'))?.isLive === true, { timeoutMs: 20_000, message: 'live again' })
    expect((await bc.proc.stop()).code).toBe(0)
    // A graceful shutdown takes the channel off the air...
    await waitFor(async () => (await record('live1'))?.isLive === false, { timeoutMs: 10_000, message: 'isLive false at shutdown' })
    bc = await spawnBroadcaster(undefined, bEnv)
    api = await apiClient(bc.url).login('op', 'pw-op')
    // ...and the boot resume puts it back, with the same feedKey (disk buffer).
    await waitFor(async () => {
      const r = await record('live1')
      return r?.isLive === true && r.feedKey === feedKey1
    }, { timeoutMs: 30_000, message: 'resumed' })
    const health = (await api.get('/healthz')).body
    expect(health).toMatchObject({ resuming: false, resumed: 1, total: 1, failed: 0 })
    expect((await view('other1')).running).toBe(false)
  }, 60_000)
})

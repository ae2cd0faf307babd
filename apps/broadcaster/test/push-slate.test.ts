import { createSocket } from 'node:dgram'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanupAll, createTestnet, freePort, linkToPanel, spawnProcess, startPanel, tmpDir, waitFor, type PanelLink, type SpawnedProcess } from '@arus/testkit'
import { apiClient, broadcasterEnv, cli, spawnBroadcaster } from './helpers.js'

// Done means (issue 39 item 6): a push channel is on the air only while a publisher feeds.
// One that was never published idles in waiting-input with isLive false and no respawns;
// when the publisher drops, after the grace (SLATE_AFTER respawns' worth of backoff: 200 +
// 400 ms here) the feed carries the offline slate, slate.slated is true and the catalog
// says isLive false; when the publisher reconnects it is on the air again, the slate is
// gone and the feed numbering goes on. Real rtmp and udp publishers (ffmpeg) push to the
// broadcaster, which registers with a real panel; the catalog is read as a viewer reads it.

const noTeardown = { onTestFinished: () => {} }
let api: ReturnType<typeof apiClient>
let link: PanelLink
let rtmpPort: number
let dataDir: string

/** The live catalog record of `id` as a viewer's replica sees it (null when absent). */
async function record (id: string) {
  await link.reader.update({ wait: true })
  const r = await link.reader.getStream(id)
  return r?.type === 'live' ? r : null
}

const view = async (id: string) => (await api.get(`/api/channels/${id}`)).body
const sequence = async (id: string) => (await view(id)).playlist?.lastSequence ?? -1

/** Where a publisher pushes: rtmp to the channel's app/stream, or MPEG-TS over udp. */
type Target = { kind: 'rtmp'; port: number } | { kind: 'udp'; port: number }

/** ffmpeg pushing 320x180 H.264 / 44.1 kHz AAC to the channel's listener (stopped by cleanupAll if still running). */
function publish (id: string, to: Target): SpawnedProcess {
  const out = to.kind === 'rtmp' ? ['-f', 'flv', `rtmp://127.0.0.1:${to.port}/live/${id}`] : ['-f', 'mpegts', `udp://127.0.0.1:${to.port}?pkt_size=1316`]
  return spawnProcess(undefined, 'ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-re',
    '-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=25', '-f', 'lavfi', '-i', 'sine=sample_rate=44100',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-g', '25', '-c:a', 'aac', ...out], { timeoutMs: 120_000 })
}

/** Publishes until the channel is up: the listener may not accept yet when the first publisher dials. */
async function publishUntilUp (id: string, to: Target): Promise<SpawnedProcess> {
  let pub = publish(id, to)
  await waitFor(async () => {
    const v = await view(id)
    if (v.state === 'up' && !v.slate.slated) return true
    if (pub.child.exitCode !== null || pub.child.signalCode !== null) pub = publish(id, to)
    return false
  }, { timeoutMs: 30_000, message: `${id} on the air from its publisher` })
  return pub
}

function freeUdpPort (): Promise<number> {
  return new Promise((resolve) => {
    const sock = createSocket('udp4').bind(0, '127.0.0.1', () => { const p = sock.address().port; sock.close(() => resolve(p)) })
  })
}

beforeAll(async () => {
  const testnet = await createTestnet()
  const work = tmpDir(undefined, 'bc-push-')
  const panel = await startPanel(undefined, { testnet, dataDir: join(work, 'panel'), adminApi: false })
  const site = await panel.addPublisher('site1', 'push*')
  link = await linkToPanel(noTeardown, testnet, panel.panelKey)
  rtmpPort = await freePort()
  dataDir = join(work, 'bc')
  const env = broadcasterEnv(dataDir, {
    BOOTSTRAP: testnet.bootstrapString,
    PANEL_PUBKEY: panel.panelKey,
    PUBLISHER_KEY: site.secretKey,
    PUBLISHER_NAME: 'site1',
    CONTROL_ENABLED: '1',
    CONTROL_PORT: String(await freePort()),
    INGEST_BIND: '127.0.0.1',
    SLATE_AFTER: '3',
    STALL_SEC: '3',
    REGISTER_HEARTBEAT_SEC: '5'
  })
  expect((await cli(env, ['add-admin', 'op'], 'pw\n')).code).toBe(0)
  const bc = await spawnBroadcaster(undefined, env)
  api = await apiClient(bc.url).login('op', 'pw')
}, 90_000)

afterAll(async () => { await cleanupAll() }, 30_000)

describe('push channels and the offline slate', () => {
  it('keeps a never-published push channel waiting for its publisher, off the air, without respawns', async () => {
    expect((await api.post('/api/channels', { id: 'push-idle', input: { kind: 'rtmp', port: await freePort() }, hlsTime: 1 })).status).toBe(201)
    const feedKey = (await api.post('/api/channels/push-idle/start')).body.feedKey
    const rec = await waitFor(async () => { const r = await record('push-idle'); return r?.feedKey === feedKey ? r : null }, { timeoutMs: 20_000, message: 'push-idle registered' })
    expect(rec.isLive).toBe(false)
    // Well past the grace (600 ms) and the stall check (3 s): still idle, still one listener.
    await new Promise((resolve) => setTimeout(resolve, 4000))
    const v = await view('push-idle')
    expect(v).toMatchObject({ state: 'waiting-input', ffmpegUp: true, slate: { slated: false }, watchdog: { restarts: 0 } })
    expect((await record('push-idle'))!.isLive).toBe(false)
    await api.post('/api/channels/push-idle/stop')
  }, 40_000)

  it('slates a push channel whose publisher left, registers isLive false, and goes back on the air when the publisher returns', async () => {
    expect((await api.post('/api/channels', { id: 'push1', input: { kind: 'rtmp', port: rtmpPort }, hlsTime: 1, hlsListSize: 4 })).status).toBe(201)
    const feedKey = (await api.post('/api/channels/push1/start')).body.feedKey
    await waitFor(async () => (await view('push1')).ffmpegUp, { timeoutMs: 10_000, message: 'the rtmp listener' })
    const first = await publishUntilUp('push1', { kind: 'rtmp', port: rtmpPort })
    await waitFor(async () => { const r = await record('push1'); return r?.feedKey === feedKey && r.isLive }, { timeoutMs: 20_000, message: 'isLive true while publishing' })
    expect((await view('push1')).detectedProfile).toEqual({ codec: 'h264', width: 320, height: 180 })

    // The publisher drops.
    first.child.kill('SIGKILL')
    const slated = await waitFor(async () => { const v = await view('push1'); return v.slate.slated ? v : null }, { timeoutMs: 20_000, message: 'slate on' })
    expect(slated).toMatchObject({ state: 'up', running: true })
    expect(slated.slate.file).toMatch(/slate-320x180-25fps-44100\.ts$/)
    await waitFor(async () => (await record('push1'))?.isLive === false, { timeoutMs: 20_000, message: 'isLive false without a publisher' })
    // The slate feeds the channel: a player that is already playing keeps playing.
    const s0 = await sequence('push1')
    await waitFor(async () => (await sequence('push1')) >= s0 + 3, { timeoutMs: 15_000, message: 'the feed advancing on the slate' })
    const onSlate = await view('push1')
    expect(onSlate.slate.slated).toBe(true)
    expect(onSlate.watchdog.restarts).toBe(slated.watchdog.restarts) // the listener waits beside the slate: no respawns
    expect((await api.get('/metrics')).body).toContain('arus_broadcaster_channels_slated 1')
    expect((await api.get('/api/status')).body.channels.find((c: { id: string }) => c.id === 'push1')).toMatchObject({ slated: true, state: 'up' })
    const incidents = (await api.get('/api/incidents')).body.incidents as Array<{ kind: string; channel: string | null; endedAt: number | null }>
    expect(incidents.some((i) => i.kind === 'slate-on' && i.channel === 'push1')).toBe(true)
    expect(incidents.find((i) => i.kind === 'source-outage' && i.channel === 'push1')?.endedAt).toBeNull()

    // The publisher comes back: on the air again on the same connection, numbering on from the slate.
    const s1 = await sequence('push1')
    const second = await publishUntilUp('push1', { kind: 'rtmp', port: rtmpPort })
    await waitFor(async () => (await record('push1'))?.isLive === true, { timeoutMs: 20_000, message: 'isLive true again' })
    const s2 = await sequence('push1')
    expect(s2).toBeGreaterThan(s1)
    await waitFor(async () => (await sequence('push1')) >= s2 + 3, { timeoutMs: 15_000, message: 'the publisher feeding again' })
    // What the feed last got from the scratch dir: the publisher's segments numbered on after the slate's, in order.
    const listed = [...(await readFile(join(dataDir, 'scratch', 'push1', 'index.m3u8'), 'utf8')).matchAll(/^seg(\d+)\.ts$/gm)].map((m) => Number(m[1]))
    expect(listed[0]).toBeGreaterThan(s1)
    expect(listed).toEqual(listed.map((_, i) => listed[0]! + i))
    const back = await view('push1')
    expect(back).toMatchObject({ state: 'up', slate: { slated: false }, detectedProfile: { codec: 'h264', width: 320, height: 180 } })
    expect(second.child.exitCode).toBeNull() // the hand-over kept the publisher's connection
    const log = (await api.get('/api/channels/push1/logs?lines=400')).body.lines.map((l: { line: string }) => l.line).join('\n')
    expect(log).toContain('the publisher is back; dropping the slate')
    const after = (await api.get('/api/incidents')).body.incidents as Array<{ kind: string; channel: string | null; endedAt: number | null }>
    expect(after.some((i) => i.kind === 'slate-off' && i.channel === 'push1')).toBe(true)
    expect(after.find((i) => i.kind === 'source-outage' && i.channel === 'push1')?.endedAt).not.toBeNull()
    await second.stop()
    await api.post('/api/channels/push1/stop')
  }, 120_000)

  it('notices a udp publisher gone through the stall check, slates, and unslates when packets flow again', async () => {
    const port = await freeUdpPort()
    expect((await api.post('/api/channels', { id: 'push-udp', input: { kind: 'udp', port }, hlsTime: 1, hlsListSize: 4 })).status).toBe(201)
    const feedKey = (await api.post('/api/channels/push-udp/start')).body.feedKey
    const first = await publishUntilUp('push-udp', { kind: 'udp', port })
    await waitFor(async () => { const r = await record('push-udp'); return r?.feedKey === feedKey && r.isLive }, { timeoutMs: 20_000, message: 'isLive true while publishing' })
    // Nothing tells a udp listener its publisher stopped: no segment for STALL_SEC (3 s), then the grace.
    await first.stop('SIGKILL')
    await waitFor(async () => (await view('push-udp')).slate.slated, { timeoutMs: 20_000, message: 'slate on' })
    await waitFor(async () => (await record('push-udp'))?.isLive === false, { timeoutMs: 20_000, message: 'isLive false' })
    const s0 = await sequence('push-udp')
    await waitFor(async () => (await sequence('push-udp')) >= s0 + 2, { timeoutMs: 15_000, message: 'the feed advancing on the slate' })

    const second = await publishUntilUp('push-udp', { kind: 'udp', port })
    await waitFor(async () => (await record('push-udp'))?.isLive === true, { timeoutMs: 20_000, message: 'isLive true again' })
    const s1 = await sequence('push-udp')
    await waitFor(async () => (await sequence('push-udp')) >= s1 + 2, { timeoutMs: 15_000, message: 'the publisher feeding again' })
    expect((await view('push-udp')).slate.slated).toBe(false)
    await second.stop()
    await api.post('/api/channels/push-udp/stop')
  }, 90_000)
})

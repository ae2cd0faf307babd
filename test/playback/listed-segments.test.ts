import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { removalGrace } from '@arus/feed'
import { createPlayer, loginWithRetry, type Player } from '@arus/sdk'
import { cleanupAll, createStack, tmpDir, waitFor, type BroadcasterHandle, type Stack, type TestContextLike } from '@arus/testkit'

// Issue 22: every segment a viewer's local playlist lists can be fetched, by the first viewer
// too and at any bitrate, or it is refused at once. Built panel and broadcaster, real ffmpeg
// transcodes, SDK viewers with fresh stores on a local testnet, plain HTTP to the local URL.

const LIST_SIZE = 6
const SEGMENT_SEC = 2
// A bound that only a held or stalled request reaches (the SDK holds 8 s, a stalled read 10 s).
const PROMPT_MS = 5_000

const ctx = { onTestFinished: () => {} }
let stack: Stack
let bc: BroadcasterHandle

beforeAll(async () => {
  stack = await createStack(ctx, {
    panel: { users: [{ name: 'alice', password: 'alice-pw' }] },
    // The env-configured (legacy) channel: the `test` pattern at the defaults, 2 s segments.
    broadcasters: [{ env: { STREAM_ID: 'envch', INPUT: 'test', HLS_TIME: String(SEGMENT_SEC), HLS_LIST_SIZE: String(LIST_SIZE) } }]
  })
  bc = stack.broadcasters[0]!
}, 120_000)

afterAll(async () => { await cleanupAll() }, 60_000)

interface Fetched { status: number; bytes: Buffer; ms: number }

async function get (url: string, method = 'GET'): Promise<Fetched> {
  const t0 = Date.now()
  const res = await fetch(url, { method, signal: AbortSignal.timeout(30_000) })
  const bytes = Buffer.from(await res.arrayBuffer())
  return { status: res.status, bytes, ms: Date.now() - t0 }
}

interface Listing { text: string; mediaSequence: number; segments: string[] }

async function playlistAt (url: string): Promise<Listing> {
  const r = await get(url)
  expect(r.status).toBe(200)
  const text = r.bytes.toString('utf8')
  const sequence = /#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(text)
  return { text, mediaSequence: Number(sequence?.[1] ?? -1), segments: text.split('\n').filter((l) => /^seg\d+\.ts$/.test(l)) }
}

/** A viewer with a fresh store, logged in, tuned to `streamId`: its local playlist URL. */
async function viewer (t: TestContextLike, streamId: string): Promise<{ player: Player; url: string; segment: (uri: string) => string }> {
  const player = createPlayer({ panelPubKey: stack.panel.panelKey, storeDir: tmpDir(t, 'arus-viewer-'), swarm: { bootstrap: stack.testnet!.bootstrap } })
  t.onTestFinished(() => player.stop())
  await player.connect()
  await loginWithRetry(player, 'alice', 'alice-pw', { attempts: 40, delayMs: 500 })
  const { url } = await player.resolve(streamId)
  return { player, url, segment: (uri) => new URL(uri, url).toString() }
}

/** Waits until `id` is registered with the panel, then grants it to alice. */
async function granted (id: string): Promise<void> {
  await waitFor(async () => (await bc.api<{ registered: boolean }>('GET', `/api/channels/${id}`)).registered, { timeoutMs: 60_000, intervalMs: 250, message: `${id} registered` })
  await stack.panel.api('POST', '/api/users/alice/grants', { streamId: id })
}

/** Waits until the broadcaster's playlist of `id` is full and has moved on at least once. */
async function windowFull (id: string): Promise<void> {
  await waitFor(async () => {
    const ch = await bc.api<{ playlist: { playlistVersion: number } | null }>('GET', `/api/channels/${id}`)
    return (ch.playlist?.playlistVersion ?? 0) > LIST_SIZE
  }, { timeoutMs: 90_000, intervalMs: 500, message: `${id}: a full playlist window` })
}

/** Waits until the viewer's local playlist differs from `list` (the origin published a newer one). */
async function advanced (url: string, list: Listing): Promise<Listing> {
  return await waitFor(async () => {
    const now = await playlistAt(url)
    return now.text !== list.text ? now : null
  }, { timeoutMs: 6 * SEGMENT_SEC * 2000, intervalMs: 100, message: 'the local playlist moved on' })
}

function expectSegment (r: Fetched, what: string, boundMs = PROMPT_MS): void {
  expect(r.status, what).toBe(200)
  expect(r.bytes.byteLength, what).toBeGreaterThan(10_000)
  // MPEG-TS: a sync byte every 188 bytes.
  expect([r.bytes[0], r.bytes[188], r.bytes[r.bytes.byteLength - 188]], what).toEqual([0x47, 0x47, 0x47])
  expect(r.ms, `${what}: answered in ${r.ms} ms`).toBeLessThan(boundMs)
}

/**
 * The scenario, as two first-time viewers: one gets through its first playlist one
 * segment late (by then the oldest listed segment has left the origin's playlist: the trigger,
 * made deterministic), the other at once. Each fetches every segment its first playlist lists.
 */
async function everyListedSegmentServes (t: TestContextLike, id: string): Promise<void> {
  const slow = await viewer(t, id)
  const first = await playlistAt(slow.url)
  expect(first.segments.length).toBe(LIST_SIZE)
  await advanced(slow.url, first)
  for (const uri of first.segments) expectSegment(await get(slow.segment(uri)), `${id} slow viewer ${uri}`)

  const prompt = await viewer(t, id)
  const list = await playlistAt(prompt.url)
  expect(list.segments.length).toBe(LIST_SIZE)
  for (const uri of list.segments) expectSegment(await get(prompt.segment(uri)), `${id} prompt viewer ${uri}`)
}

describe('every segment the local playlist lists can be fetched (issue 22)', () => {
  it('the env-configured channel (640x360 test pattern)', async (t) => {
    await granted('envch')
    await windowFull('envch')
    await everyListedSegmentServes(t, 'envch')
    await bc.api('POST', '/api/channels/envch/stop')
  }, 180_000)

  it('a 1280x720, 30 fps transcode (about 3 Mbit/s, segments of ~730 KiB)', async (t) => {
    await bc.api('POST', '/api/channels', { id: 'hd', title: 'HD', input: 'test', transcode: { width: 1280, height: 720, fps: 30 }, hlsTime: SEGMENT_SEC, hlsListSize: LIST_SIZE })
    await bc.api('POST', '/api/channels/hd/start')
    await granted('hd')
    await windowFull('hd')
    await everyListedSegmentServes(t, 'hd')

    // A segment that left the window and its removal grace is refused at once; one at the
    // window's head is served, and the next one (not written yet) is held until it exists.
    const v = await viewer(t, 'hd')
    const list = await playlistAt(v.url)
    const oldest = list.mediaSequence
    const head = list.segments[list.segments.length - 1]!
    expectSegment(await get(v.segment(head)), `head ${head}`)
    const next = `seg${Number(/\d+/.exec(head)![0]) + 1}.ts`
    // Held until ffmpeg writes it (one segment period, longer when the machine is busy), within the 8 s hold.
    expectSegment(await get(v.segment(next)), `next ${next} (held until written)`, 9_000)
    // seg<oldest> leaves the playlist at media sequence oldest + 1, and the origin expires it
    // removalGrace(LIST_SIZE) playlists later.
    const gone = oldest + 1 + removalGrace(LIST_SIZE)
    await waitFor(async () => (await playlistAt(v.url)).mediaSequence > gone, { timeoutMs: (gone - oldest + 4) * SEGMENT_SEC * 2000, intervalMs: 250, message: `seg${oldest} expired at the origin` })
    for (const method of ['GET', 'HEAD']) {
      const r = await get(v.segment(`seg${oldest}.ts`), method)
      expect(r.status, `${method} seg${oldest}.ts`).toBe(404)
      expect(r.ms, `${method} seg${oldest}.ts refused in ${r.ms} ms`).toBeLessThan(1_000)
    }
    const ancient = await get(v.segment('seg0.ts'))
    expect(ancient.status).toBe(404)
    expect(ancient.ms).toBeLessThan(1_000)
    await bc.api('POST', '/api/channels/hd/stop')
  }, 240_000)

  it('the default 640x360 transcode of a control-API channel', async (t) => {
    await bc.api('POST', '/api/channels', { id: 'sd', title: 'SD', input: 'test', hlsTime: SEGMENT_SEC, hlsListSize: LIST_SIZE })
    await bc.api('POST', '/api/channels/sd/start')
    await granted('sd')
    await windowFull('sd')
    await everyListedSegmentServes(t, 'sd')
    await bc.api('POST', '/api/channels/sd/stop')
  }, 180_000)
})

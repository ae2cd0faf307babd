import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Player, StatusEvent } from '@arus/sdk'
import { cleanupAll, waitFor } from '@arus/testkit'
import { decode } from './helpers/ffmpeg.js'
import { api, connectAndLogin, createStack, hexKeysIn, newPlayer, panel, registerLive, runPanel, type Stack } from './helpers/stack.js'
import { startTestFeed, type TestFeed } from './helpers/test-feed.js'
import { startBroadcaster } from './helpers/broadcaster.js'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

// A panel process and a broadcaster process (ffmpeg test pattern channels) on a local testnet,
// plus a finished vod rendition fed from this process (registered the way the VOD library
// registers; test/library drives the real library daemon); every record shape of spec 3
// "resolve contract" is prepared before the tests run.
const ctx = { onTestFinished: () => {} }
let stack: Stack
let newsFeedKey: string
let vod: TestFeed
/** Every stream content key the panel holds: none may ever reach a display list or a result. */
const streamKeys = () => Object.values(JSON.parse(readFileSync(join(stack.dataDir, 'private', 'stream-keys.json'), 'utf8')).keys as Record<string, string>)
const CDN_URL = 'https://cdn.example/live/index.m3u8?token=a%20b&x=1'

beforeAll(async () => {
  stack = await createStack(ctx)
  vod = await startTestFeed(ctx, stack.testnet, { vod: true })
  await panel(stack, ['create-user', 'alice'], 'alice-pw\n')
  await runPanel(ctx, stack)
  const bc = await startBroadcaster(ctx, stack)
  newsFeedKey = await bc.channel('news', { title: 'News' })
  await bc.channel('offair', { title: 'Off air' })
  await bc.api.post('/api/channels/offair/stop')
  // What the VOD library registers (legacy publisher key): a finished title and a deleted one.
  await registerLive(ctx, stack, { streamId: 'movie', type: 'vod', feedKey: vod.feedKey, key: vod.encryptionKey, durationSec: 8, status: 'available', title: 'Movie' })
  await registerLive(ctx, stack, { streamId: 'gone', type: 'vod', feedKey: null, key: vod.encryptionKey, title: 'Gone' })
  // What an operator does in the admin API.
  await api(stack, 'POST', '/api/streams', { id: 'idle', title: 'Idle' })
  await api(stack, 'POST', '/api/streams', { id: 'cdn', title: 'Partner', url: CDN_URL })
  await api(stack, 'POST', '/api/streams', { id: 'secret', title: 'Not granted' })
  for (const id of ['news', 'offair', 'idle', 'cdn', 'movie', 'gone']) await api(stack, 'POST', '/api/users/alice/grants', { streamId: id })
}, 120_000)

afterAll(async () => { await cleanupAll() }, 60_000)

async function aliceOn (t: { onTestFinished(fn: () => unknown): void }, init = {}): Promise<Player> {
  const player = newPlayer(t, stack, { tune: { timeoutMs: 10_000 }, ...init })
  await connectAndLogin(player, 'alice', 'alice-pw')
  return player
}

describe('login and the display list', () => {
  it('logs in, lists the entitled streams with metadata only, and emits streams', async (t) => {
    const player = newPlayer(t, stack)
    const seen: unknown[] = []
    player.on('streams', (list) => seen.push(list))
    let ready = false
    player.on('ready', () => { ready = true })
    const list = await connectAndLogin(player, 'alice', 'alice-pw')
    expect(ready).toBe(true)
    expect(list.map((i) => i.id).sort()).toEqual(['cdn', 'gone', 'idle', 'movie', 'news', 'offair'])
    expect(seen).toEqual([list])
    expect(player.listStreams()).toEqual(list)
    const news = list.find((i) => i.id === 'news')
    expect(news).toMatchObject({ title: 'News', type: 'live', isLive: true, status: 'live', redirect: false, available: true, viewerCount: null })
    expect(list.find((i) => i.id === 'movie')).toMatchObject({ type: 'vod', durationSec: 8, isLive: null, available: true })
    expect(list.find((i) => i.id === 'cdn')).toMatchObject({ redirect: true, available: true })
    expect(list.find((i) => i.id === 'idle')).toMatchObject({ isLive: false, status: 'idle', available: false })
    // No key material at all: not the stream keys, and no 32-byte hex value of any kind.
    expect(hexKeysIn(list)).toEqual([])
    for (const key of streamKeys()) expect(JSON.stringify(list).toLowerCase()).not.toContain(key)
    expect(player.session()).toMatchObject({ username: 'alice', tokenVersion: 0 })
    expect(await player.sessionLive()).toBe(true)
  })

  it('rejects a wrong password (client-side) with a stable code', async (t) => {
    const player = newPlayer(t, stack)
    await player.connect()
    await waitFor(() => player.diagnostics().panelLinked, { timeoutMs: 20_000 })
    await expect(player.login('alice', 'wrong')).rejects.toMatchObject({ code: 'SDK_WRONG_PASSWORD', message: 'wrong username or password' })
    await expect(player.login('nobody', 'x')).rejects.toMatchObject({ code: 'SDK_WRONG_PASSWORD' })
    expect(player.session()).toBeNull()
  })
})

describe('resolve contract', () => {
  it('plays a live P2P channel on the local URL; ffmpeg decodes 6 s; no key material', async (t) => {
    const player = await aliceOn(t)
    const statuses: StatusEvent[] = []
    player.on('status', (e) => statuses.push(e))
    const result = await player.resolve('news')
    const port = player.port
    expect(result).toEqual({ url: `http://127.0.0.1:${port}/index.m3u8`, localUrl: `http://127.0.0.1:${port}/index.m3u8`, source: 'p2p', port, feedKey: newsFeedKey, type: 'live' })
    expect(hexKeysIn(result)).toEqual([newsFeedKey]) // the public drive key, nothing else
    for (const key of streamKeys()) expect(JSON.stringify(result).toLowerCase()).not.toContain(key)
    expect(player.source()).toEqual({ streamId: 'news', source: 'p2p', url: result.url, type: 'live' })
    const out = await decode(result.url, 6)
    expect(out.stderr).toBe('')
    expect(out.code).toBe(0)
    expect(statuses.map((s) => s.state).slice(0, 2)).toEqual(['feed:open', 'feed:ready'])
    expect(statuses[0]?.streamId).toBe('news')
  })

  it("not entitled: throws 'not entitled to <id>'", async (t) => {
    const player = await aliceOn(t)
    await expect(player.resolve('secret')).rejects.toMatchObject({ code: 'SDK_NOT_ENTITLED', message: 'not entitled to secret' })
    await expect(player.resolve('nope')).rejects.toMatchObject({ code: 'SDK_NOT_ENTITLED', message: 'not entitled to nope' })
  })

  it("entitled live channel without a feed, or stopped by its broadcaster: 'channel is not broadcasting right now'", async (t) => {
    const player = await aliceOn(t)
    await expect(player.resolve('idle')).rejects.toMatchObject({ code: 'SDK_NOT_BROADCASTING', message: 'channel is not broadcasting right now' })
    await expect(player.resolve('offair')).rejects.toMatchObject({ code: 'SDK_NOT_BROADCASTING', message: 'channel is not broadcasting right now' })
    expect(player.source()).toBeNull()
  })

  it("entitled vod title without a feed: 'title is not available right now'", async (t) => {
    const player = await aliceOn(t)
    await expect(player.resolve('gone')).rejects.toMatchObject({ code: 'SDK_TITLE_UNAVAILABLE', message: 'title is not available right now' })
  })

  it('redirect: the operator URL verbatim, source cdn, no feed, no swarm join, no status', async (t) => {
    const player = await aliceOn(t)
    const events: string[] = []
    for (const e of ['status', 'peers', 'error', 'feed-changed'] as const) player.on(e, () => events.push(e))
    const result = await player.resolve('cdn')
    expect(result).toEqual({ url: CDN_URL, source: 'cdn', feedKey: null, type: 'live' })
    expect(player.source()).toEqual({ streamId: 'cdn', source: 'cdn', url: CDN_URL, type: 'live' })
    expect(player.diagnostics()).toMatchObject({ feedTopics: 0, feed: null })
    await new Promise((resolve) => setTimeout(resolve, 3500))
    expect(events).toEqual([])
  })

  it('vod: a finished rendition with free seeking, type vod and durationSec; no tune machinery', async (t) => {
    const player = await aliceOn(t)
    const events: string[] = []
    for (const e of ['status', 'error', 'feed-changed'] as const) player.on(e, () => events.push(e))
    const result = await player.resolve('movie')
    expect(result).toMatchObject({ source: 'p2p', type: 'vod', durationSec: 8, feedKey: vod.feedKey })
    const playlist = await (await fetch(result.url)).text()
    expect(playlist).toContain('#EXT-X-PLAYLIST-TYPE:VOD')
    expect(playlist).toContain('#EXT-X-ENDLIST')
    const seek = await decode(result.url, 2, 60_000, ['-ss', '5'])
    expect(seek.stderr).toBe('')
    expect(seek.code).toBe(0)
    expect(events).toEqual([])
  })
})

describe('local HTTP server', () => {
  it('serves GET/HEAD, single Range 206/416, 404 for unknown paths and 405 for other methods', async (t) => {
    const player = await aliceOn(t, { server: { holdMs: 1500 } })
    const { url } = await player.resolve('movie')
    const base = url.replace('/index.m3u8', '')
    const list = await (await fetch(url)).text()
    const first = list.split('\n').find((l) => l.endsWith('.ts'))
    expect(first).toMatch(/^seg\d+\.ts$/)
    const full = await fetch(`${base}/${first}`)
    expect(full.status).toBe(200)
    expect(full.headers.get('content-type')).toBe('video/mp2t')
    expect(full.headers.get('accept-ranges')).toBe('bytes')
    const bytes = new Uint8Array(await full.arrayBuffer())
    expect(bytes[0]).toBe(0x47) // MPEG-TS sync byte
    const head = await fetch(`${base}/${first}`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(Number(head.headers.get('content-length'))).toBe(bytes.byteLength)
    const part = await fetch(`${base}/${first}`, { headers: { range: 'bytes=188-375' } })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe(`bytes 188-375/${bytes.byteLength}`)
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.subarray(188, 376))
    const tail = await fetch(`${base}/${first}`, { headers: { range: 'bytes=-100' } })
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(bytes.subarray(bytes.byteLength - 100))
    const beyond = await fetch(`${base}/${first}`, { headers: { range: `bytes=${bytes.byteLength}-` } })
    expect(beyond.status).toBe(416)
    expect(beyond.headers.get('content-range')).toBe(`bytes */${bytes.byteLength}`)
    expect((await fetch(`${base}/nope.txt`)).status).toBe(404)
    expect((await fetch(`${base}/seg99999.ts`)).status).toBe(404) // held (bounded), then 404
    expect((await fetch(url, { method: 'POST' })).status).toBe(405)
  })
})

describe('problem reports', () => {
  it('the panel takes a report; a second one per channel and category waits 10 minutes on the device', async (t) => {
    let now = Date.now()
    const player = newPlayer(t, stack, {}, { now: () => now })
    await connectAndLogin(player, 'alice', 'alice-pw')
    expect(await player.report({ channel: 'news', category: 'buffering' })).toEqual({ status: 'sent' })
    expect(await player.report({ channel: 'news', category: 'buffering', text: 'again' })).toEqual({ status: 'cooldown', retryAfter: 600 })
    expect(await player.report({ channel: 'news', category: 'no-audio' })).toEqual({ status: 'sent' })
    expect(await player.report({ channel: 'movie', category: 'buffering' })).toEqual({ status: 'sent' })
    now += 9 * 60_000
    expect(await player.report({ channel: 'news', category: 'buffering' })).toEqual({ status: 'cooldown', retryAfter: 60 })
    now += 60_000
    expect(await player.report({ channel: 'news', category: 'buffering' })).toEqual({ status: 'sent' })
    const { reports } = await api(stack, 'GET', '/api/reports?channel=news') as { reports: Array<{ category: string; count: number }> }
    expect(reports.map((r) => [r.category, r.count]).sort()).toEqual([['buffering', 2], ['no-audio', 1]])
    await expect(player.report({ channel: 'news', category: 'boring' as never })).rejects.toMatchObject({ code: 'SDK_INVALID_ARGUMENT' })
  })
})

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENGINE_PROTOCOL_VERSION } from '@arus/sdk'
import { cleanupAll, startHttpsFixture, tmpDir, waitFor, type HttpsFixture, type Stack } from '@arus/testkit'
import { checkFixture } from './fixtures.js'
import { engineStack, startWorklet, type Msg, type Worklet } from './worklet-host.js'

// Issue 44 item 9: engine protocol 2 reaches the SDK features beyond playback — problem reports,
// the programme guide (useEpg), the VOD provider settings, setUploadPolicy, prewarm and
// sessionLive — through the real worklet under Bare, against a real panel and broadcaster on a
// local testnet and a real https guide server (the worklet trusts its certificate with --ca).

const ctx = { onTestFinished: () => {} }
let stack: Stack
let bundle: string
let guide: HttpsFixture
const T0 = Date.now()
const iso = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString()
const SHOWS = [-1, 0, 1, 2, 3, 4].map((h) => ({ title: `Show ${h}`, start: iso(h * 60 - 30), stop: iso(h * 60 + 30) }))
const VOD = { enabled: true, apiBase: 'https://vod.example/api', service: 'acme', sources: { movies: 'm1' }, params: { lang: 'en' } }

beforeAll(async () => {
  ({ stack, bundle } = await engineStack(ctx))
  guide = await startHttpsFixture(ctx)
  guide.set('/epg.json', { body: JSON.stringify({ channels: [{ id: 'news.tv', epg: SHOWS }] }) })
  await stack.panel.api('PATCH', '/api/streams/news', { epgUrl: guide.url('/epg.json'), epgId: 'news.tv' })
  await stack.panel.api('PATCH', '/api/vod-config', VOD)
}, 240_000)

afterAll(async () => { await cleanupAll() }, 60_000)

describe('engine protocol 2 under Bare', () => {
  it('reports a problem (sent, then cooldown), reads the guide, the VOD provider settings, prewarms, switches the upload policy and checks the session', async (t) => {
    const w = startWorklet(t, bundle, tmpDir(t, 'arus-worklet-data-'), ['--ca', guide.caFile])
    w.send({ cmd: 'start', v: ENGINE_PROTOCOL_VERSION, panelPubKey: stack.panel.panelKey, swarm: { bootstrap: stack.testnet!.bootstrap }, tune: { timeoutMs: 30_000 } })
    expect(await w.next((m) => m.type === 'port', { what: 'port' })).toEqual({ type: 'port', v: 2, port: expect.any(Number) })
    await w.next((m) => m.type === 'status' && m.state === 'ready', { what: 'ready' })
    // Before login the session-bound features answer with the SDK's own code.
    let at = w.messages.length
    w.send({ cmd: 'report', id: 'r0', channel: 'news', category: 'buffering' })
    expect(await w.next((m) => m.type === 'error' && m.id === 'r0', { from: at, what: 'report before login' })).toMatchObject({ code: 'SDK_NOT_LOGGED_IN', cmd: 'report' })

    at = w.messages.length
    w.send({ cmd: 'login', id: 1, username: 'alice', password: 'alice-pw' })
    await w.next((m) => m.type === 'status' && m.state === 'logged-in', { from: at, timeoutMs: 60_000, what: 'logged-in' })
    const streams = await w.next((m) => m.type === 'streams', { from: at, what: 'streams' })
    const news = streams.streams.find((s: { id: string }) => s.id === 'news')
    expect(news).toMatchObject({ epgUrl: guide.url('/epg.json'), epgId: 'news.tv' })

    const ask = async (command: Record<string, unknown>, type: string): Promise<Msg> => {
      const from = w.messages.length
      w.send(command)
      return await w.next((m) => m.type === type || (m.type === 'error' && m.id === command.id), { from, timeoutMs: 30_000, what: type })
    }
    expect(await ask({ cmd: 'vodProvider', id: 'v' }, 'vod-provider')).toEqual({ type: 'vod-provider', id: 'v', provider: VOD })

    expect(await ask({ cmd: 'epg', id: 'g', epgUrl: news.epgUrl, epgId: news.epgId }, 'epg')).toEqual({
      type: 'epg', id: 'g', epgUrl: guide.url('/epg.json'), epgId: 'news.tv', loaded: true, now: SHOWS[1], next: SHOWS.slice(2, 6)
    })
    expect(guide.hits('/epg.json').requests).toBe(1)
    // An unknown id in the same document: no guide, from the cache (no second fetch).
    expect(await ask({ cmd: 'epg', id: 'g2', epgUrl: news.epgUrl, epgId: 'nope' }, 'epg')).toMatchObject({ loaded: true, now: null, next: [] })
    expect(guide.hits('/epg.json').requests).toBe(1)

    const report = { cmd: 'report', id: 'r1', channel: 'news', category: 'buffering', text: 'stalls every minute', appVersion: '2.0.0', platform: 'android-test' }
    expect(await ask(report, 'report')).toEqual({ type: 'report', id: 'r1', channel: 'news', category: 'buffering', status: 'sent' })
    await waitFor(async () => (await stack.panel.api<{ reports: unknown[] }>('GET', '/api/reports')).reports.length === 1, { timeoutMs: 10_000, message: 'the report reached the panel' })
    const { reports } = await stack.panel.api<{ reports: Array<Record<string, unknown>> }>('GET', '/api/reports')
    expect(reports[0]).toMatchObject({ category: 'buffering', channel: 'news', text: 'stalls every minute', appVersion: '2.0.0', platform: 'android-test' })
    expect(JSON.stringify(reports[0])).not.toContain('alice')
    const again = await ask({ ...report, id: 'r2' }, 'report')
    expect(again).toMatchObject({ type: 'report', id: 'r2', status: 'cooldown' })
    expect(again.retryAfter).toBeGreaterThan(590)
    expect(again.retryAfter).toBeLessThanOrEqual(600)

    expect(await ask({ cmd: 'prewarm', id: 'p' }, 'prewarm')).toEqual({ type: 'prewarm', id: 'p', warmed: 1 })
    at = w.messages.length
    w.send({ cmd: 'play', id: 'n', streamId: 'news' })
    await w.next((m) => m.type === 'status' && m.state === 'playing', { from: at, timeoutMs: 60_000, what: 'playing news' })
    // The playing feed's topic is joined again unannounced (spec 3 setUploadPolicy); playback goes on.
    expect(await ask({ cmd: 'setUploadPolicy', id: 'u', policy: 'client-only' }, 'upload-policy')).toEqual({ type: 'upload-policy', policy: 'client-only', rejoined: 1 })
    expect(await ask({ cmd: 'sessionLive', id: 's' }, 'session-live')).toEqual({ type: 'session-live', id: 's', live: true })
    // Refused at the boundary like every command: an unknown category names the field.
    at = w.messages.length
    w.send({ cmd: 'report', id: 'r3', channel: 'news', category: 'too-loud' })
    expect(await w.next((m) => m.type === 'error' && m.id === 'r3', { from: at, what: 'bad report' })).toMatchObject({ code: 'SDK_ENGINE_BAD_LINE', cmd: 'report', message: expect.stringContaining('category') })

    w.send({ cmd: 'stop' })
    expect(await w.exited()).toBe(0)
    expect(w.stderr()).not.toContain('alice-pw')
    checkFixture('services', 'protocol 2: a report before login, login, the VOD provider settings, the guide of a channel and of an unknown id, a report and its cooldown, prewarm, play a channel, the upload policy switched, sessionLive, a report with a bad category, stop', [w.transcript])
  }, 240_000)

  it('a corrupt replica store is purged and retried: the recovered event reaches the host, and login works', async (t) => {
    const dataDir = tmpDir(t, 'arus-worklet-data-')
    const login = async (w: Worklet): Promise<void> => {
      w.send({ cmd: 'start', v: ENGINE_PROTOCOL_VERSION, panelPubKey: stack.panel.panelKey, swarm: { bootstrap: stack.testnet!.bootstrap } })
      await w.next((m) => m.type === 'status' && m.state === 'ready', { what: 'ready' })
      const at = w.messages.length
      w.send({ cmd: 'login', username: 'alice', password: 'alice-pw' })
      await w.next((m) => m.type === 'status' && m.state === 'logged-in', { from: at, timeoutMs: 60_000, what: 'logged-in' })
    }
    const first = startWorklet(t, bundle, dataDir)
    await login(first)
    first.send({ cmd: 'stop' })
    expect(await first.exited()).toBe(0)
    expect(first.messages.some((m) => m.type === 'recovered')).toBe(false)

    writeFileSync(join(dataDir, 'store', 'corestore', 'db', 'CURRENT'), 'garbage')
    const back = startWorklet(t, bundle, dataDir)
    await login(back)
    const recovered = back.messages.filter((m) => m.type === 'recovered')
    expect(recovered).toEqual([{ type: 'recovered', message: expect.any(String) }])
    back.send({ cmd: 'stop' })
    expect(await back.exited()).toBe(0)
    checkFixture('store-recovered', 'protocol 2: start and login, stop; the replica store damaged; start and login again: the recovered event, then the login as usual', [first.transcript, back.transcript])
  }, 180_000)
})

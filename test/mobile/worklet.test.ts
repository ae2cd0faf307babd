import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENGINE_PROTOCOL_VERSION, MAX_LINE_BYTES } from '@arus/sdk'
import { cleanupAll, createStack, decodeWithFfmpeg, startLibrary, tmpDir, type LibraryHandle, type Stack } from '@arus/testkit'
import { makeMedia } from '../library/media.js'
import { checkFixture } from './fixtures.js'
import { buildBundle, startWorklet, type Worklet } from './worklet-host.js'

// Issue 19: the viewer engine bundled as a Bare worklet (scripts/bundle-worklet.mjs) runs under
// the real Bare runtime, spoken to in the line-delimited JSON protocol of docs/engine-ipc.md,
// against the built panel, broadcaster and library on a local testnet.

const ctx = { onTestFinished: () => {} }
let stack: Stack
let library: LibraryHandle
let bundle: string

beforeAll(async () => {
  bundle = buildBundle(ctx).bundle
  stack = await createStack(ctx, { panel: { users: [{ name: 'alice', password: 'alice-pw' }] }, broadcasters: 1 })
  library = await startLibrary(ctx, { panel: stack.panel, scopes: 'vod.*' })
  await stack.broadcasters[0]!.channel('news', { title: 'News' })
  await stack.panel.api('POST', '/api/users/alice/grants', { streamId: 'news' })
  const film = await makeMedia(tmpDir(ctx, 'arus-media-'), 'h264-aac', 8)
  await library.api('POST', '/api/titles', { id: 'vod.film', input: film, title: 'Film' })
  await library.waitTitle('vod.film')
  await stack.panel.api('POST', '/api/users/alice/grants', { streamId: 'vod.film' })
}, 240_000)

afterAll(async () => { await cleanupAll() }, 60_000)

function startCommand (): Record<string, unknown> {
  return { cmd: 'start', v: ENGINE_PROTOCOL_VERSION, panelPubKey: stack.panel.panelKey, swarm: { bootstrap: stack.testnet!.bootstrap }, tune: { timeoutMs: 30_000 } }
}

async function started (w: Worklet): Promise<void> {
  w.send(startCommand())
  const port = await w.next((m) => m.type === 'port', { what: 'port' })
  expect(port).toEqual({ type: 'port', v: ENGINE_PROTOCOL_VERSION, port: expect.any(Number) })
  await w.next((m) => m.type === 'status' && m.state === 'ready', { what: 'ready' })
}

describe('the engine worklet under Bare', () => {
  it('logs in, plays a live channel that ffmpeg decodes, follows a rotate with feed-changed, and resolves a vod title', async (t) => {
    const w = startWorklet(t, bundle, tmpDir(t, 'arus-worklet-data-'))
    await started(w)
    const from = w.messages.length
    w.send({ cmd: 'login', id: 1, username: 'alice', password: 'alice-pw' })
    await w.next((m) => m.type === 'status' && m.state === 'logged-in', { from, timeoutMs: 60_000, what: 'logged-in' })
    const streams = await w.next((m) => m.type === 'streams', { from, what: 'streams' })
    expect(streams.streams.map((s: { id: string }) => s.id).sort()).toEqual(['news', 'vod.film'])
    expect(JSON.stringify(streams)).not.toMatch(/"(key|encKey|streamKey)"/)

    let at = w.messages.length
    w.send({ cmd: 'play', id: 2, streamId: 'news' })
    const playing = await w.next((m) => m.type === 'status' && m.state === 'playing', { from: at, timeoutMs: 60_000, what: 'playing news' })
    expect(playing).toMatchObject({ streamId: 'news', source: 'p2p', mediaType: 'live', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/index\.m3u8$/), feedKey: expect.stringMatching(/^[0-9a-f]{64}$/) })
    const decoded = await decodeWithFfmpeg(playing.url, 2, { timeoutMs: 60_000 })
    expect(decoded.code, decoded.stderr).toBe(0)
    expect(w.messages.slice(at).some((m) => m.type === 'status' && m.state === 'feed:open' && m.streamId === 'news')).toBe(true)

    at = w.messages.length
    const rotated = await stack.broadcasters[0]!.api<{ feedKey: string }>('POST', '/api/channels/news/rotate')
    const changed = await w.next((m) => m.type === 'feed-changed', { from: at, timeoutMs: 90_000, what: 'feed-changed' })
    expect(changed).toEqual({ type: 'feed-changed', streamId: 'news', feedKey: rotated.feedKey, url: playing.url })
    const again = await decodeWithFfmpeg(playing.url, 2, { timeoutMs: 60_000 })
    expect(again.code, again.stderr).toBe(0)

    at = w.messages.length
    w.send({ cmd: 'play', id: 3, streamId: 'vod.film' })
    const vod = await w.next((m) => m.type === 'status' && m.state === 'playing', { from: at, timeoutMs: 60_000, what: 'playing vod.film' })
    expect(vod).toMatchObject({ streamId: 'vod.film', mediaType: 'vod', source: 'p2p' })
    const film = await decodeWithFfmpeg(vod.url, 2, { timeoutMs: 60_000 })
    expect(film.code, film.stderr).toBe(0)

    // Errors of commands come back as messages naming the command and its id.
    at = w.messages.length
    w.send({ cmd: 'play', id: 4, streamId: 'nope' })
    expect(await w.next((m) => m.type === 'error' && m.id === 4, { from: at, what: 'play error' })).toMatchObject({ code: 'SDK_NOT_ENTITLED', cmd: 'play', streamId: 'nope' })
    w.send({ cmd: 'stop' })
    expect(await w.exited()).toBe(0)
    expect(w.stderr()).not.toContain('alice-pw')
    checkFixture('login-play-rotate-vod', 'start, login, play a live channel, its feed rotates, play a vod title, play a channel without a grant, stop', [w.transcript])
  }, 300_000)

  it('a wrong password is a login-error; saved credentials and favorites survive a worklet restart', async (t) => {
    const dataDir = tmpDir(t, 'arus-worklet-data-')
    const w = startWorklet(t, bundle, dataDir)
    expect(await w.next((m) => m.type === 'prefs', { what: 'prefs' })).toEqual({ type: 'prefs', creds: null, favorites: [] })
    await started(w)
    w.send({ cmd: 'login', id: 'a', username: 'alice', password: 'wrong-pw' })
    expect(await w.next((m) => m.type === 'login-error', { timeoutMs: 60_000, what: 'login-error' })).toEqual({ type: 'login-error', id: 'a', code: 'SDK_WRONG_PASSWORD', message: 'wrong username or password', retryable: false })
    w.send({ cmd: 'saveCredentials', username: 'alice', password: 'alice-pw' })
    w.send({ cmd: 'toggleFavorite', streamId: 'news' })
    w.send({ cmd: 'toggleFavorite', streamId: 'vod.film' })
    w.send({ cmd: 'toggleFavorite', streamId: 'news' })
    await w.next((m) => m.type === 'prefs' && m.favorites.length === 1 && m.favorites[0] === 'vod.film', { what: 'prefs after toggles' })
    w.kill() // not even a clean stop
    await w.exited()

    const back = startWorklet(t, bundle, dataDir)
    expect(await back.next((m) => m.type === 'prefs', { what: 'prefs after restart' })).toEqual({ type: 'prefs', creds: { username: 'alice', password: 'alice-pw' }, favorites: ['vod.film'] })
    back.send({ cmd: 'clearCredentials' })
    expect(await back.next((m) => m.type === 'prefs' && m.creds === null, { what: 'cleared' })).toEqual({ type: 'prefs', creds: null, favorites: ['vod.film'] })
    back.send({ cmd: 'stop' })
    expect(await back.exited()).toBe(0)
    checkFixture('prefs-restart', 'a wrong password, saved credentials and favorites, the worklet killed and started again on the same data dir, credentials cleared', [w.transcript, back.transcript])
  }, 120_000)

  it('malformed, unknown, invalid and oversized lines are dropped with a warning; the engine carries on and never logs their content', async (t) => {
    const w = startWorklet(t, bundle, tmpDir(t, 'arus-worklet-data-'))
    await w.next((m) => m.type === 'prefs', { what: 'prefs' })
    const at = w.messages.length
    w.sendRaw('this is not json\n')
    w.sendRaw('[1,2,3]\n')
    w.send({ cmd: 'teleport', id: 7 })
    w.send({ cmd: 'login', id: 8, username: 'alice', password: 'planted-secret-pw', extra: true })
    w.send({ cmd: 'play', id: 9, streamId: 'news' }) // before start
    // Over the line cap, in pieces, holding a secret: skipped up to its newline.
    const big = JSON.stringify({ cmd: 'login', username: 'alice', password: 'planted-secret-pw', pad: 'x'.repeat(MAX_LINE_BYTES) })
    for (let i = 0; i < big.length; i += 256 * 1024) w.sendRaw(big.slice(i, i + 256 * 1024))
    w.sendRaw('\n')
    w.send({ cmd: 'requestPrefs', id: 10 })
    await w.next((m) => m.type === 'prefs', { from: at, what: 'prefs after the bad lines' })
    const errors = w.messages.slice(at).filter((m) => m.type === 'error')
    expect(errors.map((e) => e.code)).toEqual(['SDK_ENGINE_BAD_LINE', 'SDK_ENGINE_BAD_LINE', 'SDK_ENGINE_UNKNOWN_COMMAND', 'SDK_ENGINE_BAD_LINE', 'SDK_ENGINE_NOT_STARTED', 'SDK_ENGINE_BAD_LINE'])
    expect(errors[3]).toMatchObject({ id: 8, cmd: 'login', message: expect.stringContaining('extra') })
    expect(errors[5]!.message).toContain('too-long')
    const warnings = w.stderr()
    expect(warnings).toContain('not-json')
    expect(warnings).toContain('too-long')
    expect(warnings).toContain("refused a 'teleport' command")
    for (const text of [warnings, JSON.stringify(w.messages)]) expect(text).not.toContain('planted-secret-pw')
    // The host closing its side of the stream stops the worklet.
    w.proc.stdin!.end()
    expect(await w.exited()).toBe(0)
    checkFixture('bad-lines', 'lines that are not JSON, not an object, an unknown command, a command with an unknown field, a command before start, an oversized line; then requestPrefs still answers', [w.transcript])
  }, 120_000)
})

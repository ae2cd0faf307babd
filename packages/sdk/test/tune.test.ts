import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FeedChangedEvent, StatusEvent } from '@arus/sdk'
import { cleanupAll, waitFor } from '@arus/testkit'
import { decode } from './helpers/ffmpeg.js'
import { startBroadcaster, type Broadcaster } from './helpers/broadcaster.js'
import { api, connectAndLogin, createStack, newPlayer, panel, runPanel, type Stack } from './helpers/stack.js'

// The tune ladder and the feed-changed follow (spec 3 "Tune ladder (live P2P streams)") against
// a panel process and broadcaster processes running ffmpeg, with short tune values so a full
// walk takes seconds.
const ctx = { onTestFinished: () => {} }
let stack: Stack
let bc: Broadcaster
const TUNE = { timeoutMs: 3000, relookupMinMs: 500, relookupMaxMs: 1000, rescanMs: 0 }

beforeAll(async () => {
  stack = await createStack(ctx)
  await panel(stack, ['create-user', 'alice'], 'alice-pw\n')
  await runPanel(ctx, stack)
  bc = await startBroadcaster(ctx, stack)
}, 60_000)

afterAll(async () => { await cleanupAll() }, 60_000)

/** A started `test` channel of `on`, granted to alice; resolves its feedKey. */
async function channel (on: Broadcaster, id: string): Promise<string> {
  const feedKey = await on.channel(id)
  await api(stack, 'POST', '/api/users/alice/grants', { streamId: id })
  return feedKey
}

function record (player: { on(e: 'status', fn: (e: StatusEvent) => void): unknown; on(e: 'error', fn: (e: Error) => void): unknown }) {
  const log: Array<{ at: number; what: string; err?: Error }> = []
  player.on('status', (e) => log.push({ at: Date.now(), what: e.state }))
  player.on('error', (err) => log.push({ at: Date.now(), what: 'error', err }))
  return log
}

describe('tune ladder', () => {
  it('with the broadcaster stopped mid-tune walks feed:open → feed:retune → feed:reconnect → friendly error', async (t) => {
    const doomed = await startBroadcaster(t, stack)
    await channel(doomed, 'dead')
    const player = newPlayer(t, stack, { tune: TUNE })
    await connectAndLogin(player, 'alice', 'alice-pw')
    const log = record(player)
    doomed.signal('SIGSTOP') // the broadcaster stops answering; the catalog still says live
    const started = Date.now()
    const result = await player.resolve('dead')
    expect(result.source).toBe('p2p')
    expect(log[0]?.what).toBe('feed:open')
    doomed.signal('SIGKILL') // ...and is gone for good, mid-tune
    await waitFor(() => log.some((e) => e.what === 'error'), { timeoutMs: 20_000, message: 'tune timeout' })
    expect(log.map((e) => e.what)).toEqual(['feed:open', 'feed:retune', 'feed:reconnect', 'error'])
    const err = log.at(-1)?.err as Error & { code: string }
    expect(err.code).toBe('SDK_TUNE_TIMEOUT')
    expect(err.message).toMatch(/try again/)
    // Three bounded attempts: about 3 × timeoutMs, never much more.
    const took = (log.at(-1)?.at ?? 0) - started
    expect(took).toBeGreaterThanOrEqual(3 * TUNE.timeoutMs - 200)
    expect(took).toBeLessThan(3 * TUNE.timeoutMs + 10_000)
    // A re-zap retries fresh.
    const again = record(player)
    await player.resolve('dead')
    expect(again[0]?.what).toBe('feed:open')
  })

  it('with the feed served: feed:open → feed:ready, and a lost feed is rescanned after rescanMs', async (t) => {
    const fragile = await startBroadcaster(t, stack)
    await channel(fragile, 'fragile')
    const player = newPlayer(t, stack, { tune: { ...TUNE, rescanMs: 1500 } })
    await connectAndLogin(player, 'alice', 'alice-pw')
    const log = record(player)
    const peers: number[] = []
    player.on('peers', (n) => peers.push(n))
    const { url } = await player.resolve('fragile')
    expect((await decode(url, 2)).code).toBe(0)
    expect(log.map((e) => e.what).slice(0, 2)).toEqual(['feed:open', 'feed:ready'])
    await waitFor(() => peers.length > 0, { timeoutMs: 10_000, message: 'peers event' })
    expect(peers[0]).toBe(1)
    fragile.signal('SIGKILL') // the only source of the feed dies
    await waitFor(() => log.some((e) => e.what === 'error'), { timeoutMs: 60_000, message: 'rescan then timeout' })
    expect(log.map((e) => e.what)).toEqual(['feed:open', 'feed:ready', 'feed:rescan', 'feed:retune', 'feed:reconnect', 'error'])
  })

  it('a rotated feedKey while playing emits feed-changed and the same URL keeps playing', async (t) => {
    const first = await channel(bc, 'rotating')
    const player = newPlayer(t, stack, { tune: { ...TUNE, timeoutMs: 10_000 } })
    await connectAndLogin(player, 'alice', 'alice-pw')
    const changes: FeedChangedEvent[] = []
    player.on('feed-changed', (e) => changes.push(e))
    const { url } = await player.resolve('rotating')
    expect((await decode(url, 2)).code).toBe(0)
    // The broadcaster rotates: a new generation (new drive, same content key) is registered.
    const rotated = await bc.api.post('/api/channels/rotating/rotate')
    expect(rotated.status).toBe(200)
    const second = (await bc.api.get('/api/channels/rotating')).body.feedKey as string
    expect(second).not.toBe(first)
    await waitFor(() => changes.length > 0, { timeoutMs: 30_000, message: 'feed-changed' })
    expect(changes).toEqual([{ streamId: 'rotating', feedKey: second, url }])
    expect(player.diagnostics().feed?.feedKey).toBe(second)
    // The retired generation stops being served after the grace window; the URL plays on.
    await new Promise((resolve) => setTimeout(resolve, 6000))
    const out = await decode(url, 3)
    expect(out.stderr).toBe('')
    expect(out.code).toBe(0)
    expect(player.source()).toMatchObject({ streamId: 'rotating', url })
  })

  it('reconnectActiveFeed() redials without interrupting playback', async (t) => {
    await channel(bc, 'redial')
    const player = newPlayer(t, stack, { tune: { ...TUNE, timeoutMs: 10_000 } })
    await connectAndLogin(player, 'alice', 'alice-pw')
    const { url } = await player.resolve('redial')
    expect((await decode(url, 1)).code).toBe(0)
    await player.reconnectActiveFeed()
    await waitFor(() => (player.diagnostics().feed?.peers ?? 0) > 0, { timeoutMs: 20_000, message: 'redialed' })
    expect((await decode(url, 2)).code).toBe(0)
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FeedChangedEvent, StatusEvent } from '@arus/sdk'
import { cleanupAll, waitFor } from '@arus/testkit'
import { decode } from './helpers/ffmpeg.js'
import { api, connectAndLogin, createStack, newPlayer, panel, registerLive, runPanel, type Stack } from './helpers/stack.js'
import { startTestFeed } from './helpers/test-feed.js'

// The tune ladder and the feed-changed follow (spec 3 "Tune ladder (live P2P streams)"), with
// short tune values so a full walk takes seconds.
const ctx = { onTestFinished: () => {} }
let stack: Stack
const TUNE = { timeoutMs: 3000, relookupMinMs: 500, relookupMaxMs: 1000, rescanMs: 0 }

beforeAll(async () => {
  stack = await createStack(ctx)
  await panel(stack, ['create-user', 'alice'], 'alice-pw\n')
  await runPanel(ctx, stack)
}, 60_000)

afterAll(async () => { await cleanupAll() }, 60_000)

/** A fresh channel fed by a fresh test feed, granted to alice. */
async function channel (t: { onTestFinished(fn: () => unknown): void }, id: string) {
  const feed = await startTestFeed(t, stack.testnet)
  await registerLive(t, stack, { streamId: id, feedKey: feed.feedKey, key: feed.encryptionKey, isLive: true, title: id })
  await api(stack, 'POST', '/api/users/alice/grants', { streamId: id })
  return feed
}

function record (player: { on(e: 'status', fn: (e: StatusEvent) => void): unknown; on(e: 'error', fn: (e: Error) => void): unknown }) {
  const log: Array<{ at: number; what: string; err?: Error }> = []
  player.on('status', (e) => log.push({ at: Date.now(), what: e.state }))
  player.on('error', (err) => log.push({ at: Date.now(), what: 'error', err }))
  return log
}

describe('tune ladder', () => {
  it('with nobody serving the feed walks feed:open → feed:retune → feed:reconnect → friendly error', async (t) => {
    const feed = await channel(t, 'dead')
    await feed.stopSeeding() // the broadcaster is gone; the catalog still says live
    const player = newPlayer(t, stack, { tune: TUNE })
    await connectAndLogin(player, 'alice', 'alice-pw')
    const log = record(player)
    const started = Date.now()
    const result = await player.resolve('dead')
    expect(result.source).toBe('p2p')
    await waitFor(() => log.some((e) => e.what === 'error'), { timeoutMs: 20_000, message: 'tune timeout' })
    expect(log.map((e) => e.what)).toEqual(['feed:open', 'feed:retune', 'feed:reconnect', 'error'])
    const err = log.at(-1)?.err as Error & { code: string }
    expect(err.code).toBe('SDK_TUNE_TIMEOUT')
    expect(err.message).toMatch(/try again/)
    // Three bounded attempts: about 3 × timeoutMs, never much more.
    const took = (log.at(-1)?.at ?? 0) - started
    expect(took).toBeGreaterThanOrEqual(3 * TUNE.timeoutMs - 200)
    expect(took).toBeLessThan(3 * TUNE.timeoutMs + 5000)
    // A re-zap retries fresh.
    const again = record(player)
    await player.resolve('dead')
    expect(again[0]?.what).toBe('feed:open')
  })

  it('with the feed served: feed:open → feed:ready, and a lost feed is rescanned after rescanMs', async (t) => {
    const feed = await channel(t, 'fragile')
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
    await feed.stopSeeding()
    await waitFor(() => log.some((e) => e.what === 'error'), { timeoutMs: 30_000, message: 'rescan then timeout' })
    expect(log.map((e) => e.what)).toEqual(['feed:open', 'feed:ready', 'feed:rescan', 'feed:retune', 'feed:reconnect', 'error'])
  })

  it('a rotated feedKey while playing emits feed-changed and the same URL keeps playing', async (t) => {
    const first = await channel(t, 'rotating')
    const player = newPlayer(t, stack, { tune: { ...TUNE, timeoutMs: 10_000 } })
    await connectAndLogin(player, 'alice', 'alice-pw')
    const changes: FeedChangedEvent[] = []
    player.on('feed-changed', (e) => changes.push(e))
    const { url } = await player.resolve('rotating')
    expect((await decode(url, 2)).code).toBe(0)
    // The broadcaster rotates: a new generation (new drive, same content key) is registered.
    const second = await startTestFeed(t, stack.testnet, { encryptionKey: first.encryptionKey })
    await registerLive(t, stack, { streamId: 'rotating', feedKey: second.feedKey, key: second.encryptionKey, isLive: true })
    await waitFor(() => changes.length > 0, { timeoutMs: 20_000, message: 'feed-changed' })
    expect(changes).toEqual([{ streamId: 'rotating', feedKey: second.feedKey, url }])
    expect(player.diagnostics().feed?.feedKey).toBe(second.feedKey)
    await first.stop() // the old generation is gone: what plays now comes from the new one
    const out = await decode(url, 3)
    expect(out.stderr).toBe('')
    expect(out.code).toBe(0)
    expect(player.source()).toMatchObject({ streamId: 'rotating', url })
  })

  it('reconnectActiveFeed() redials without interrupting playback', async (t) => {
    await channel(t, 'redial')
    const player = newPlayer(t, stack, { tune: { ...TUNE, timeoutMs: 10_000 } })
    await connectAndLogin(player, 'alice', 'alice-pw')
    const { url } = await player.resolve('redial')
    expect((await decode(url, 1)).code).toBe(0)
    await player.reconnectActiveFeed()
    await waitFor(() => (player.diagnostics().feed?.peers ?? 0) > 0, { timeoutMs: 20_000, message: 'redialed' })
    expect((await decode(url, 2)).code).toBe(0)
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ZapPrefetchEvent } from '@arus/sdk'
import { cleanupAll, waitFor } from '@arus/testkit'
import { announcedOn } from './helpers/dht.js'
import { blake2b256 } from '@arus/crypto'
import { startBroadcaster } from './helpers/broadcaster.js'
import { api, connectAndLogin, createStack, newPlayer, panel, runPanel, type Stack } from './helpers/stack.js'

// Zap prefetch and prewarm (spec 3 "createPlayer options", "Zap prefetch") over three channels
// of a broadcaster process running ffmpeg, registered with a panel process.
const ctx = { onTestFinished: () => {} }
let stack: Stack
const topics: Record<string, Uint8Array> = {}

beforeAll(async () => {
  stack = await createStack(ctx)
  await panel(stack, ['create-user', 'alice'], 'alice-pw\n')
  await runPanel(ctx, stack)
  const bc = await startBroadcaster(ctx, stack)
  for (const [id, order] of [['ch1', 1], ['ch2', 2], ['ch3', 3]] as const) {
    topics[id] = blake2b256(Buffer.from('hypercore'), Buffer.from(await bc.channel(id), 'hex'))
    await api(stack, 'PATCH', `/api/streams/${id}`, { order })
    await api(stack, 'POST', '/api/users/alice/grants', { streamId: id })
  }
}, 90_000)

afterAll(async () => { await cleanupAll() }, 60_000)

describe('prewarm', () => {
  it('prewarm N joins the first N feeds by curated order after login, client-only', async (t) => {
    const player = newPlayer(t, stack, { prewarm: 2 })
    await connectAndLogin(player, 'alice', 'alice-pw')
    expect(player.diagnostics().prewarmed).toBe(2)
    // Prewarmed topics are looked up, never announced (nothing to serve yet).
    const key = player.diagnostics().publicKey as string
    expect((await announcedOn(stack.testnet, topics.ch1 as Uint8Array)).has(key)).toBe(false)
    expect(await player.prewarm()).toBe(2) // the option's count
    expect(await player.prewarm(3)).toBe(3)
    expect(player.diagnostics().prewarmed).toBe(3)
    await player.resolve('ch1')
    expect(player.diagnostics()).toMatchObject({ prewarmed: 2, feedTopics: 1 })
  })
})

describe('zap prefetch', () => {
  it('warms the neighbors of the playing channel, follows the surf direction, and suspends on a metered network', async (t) => {
    const player = newPlayer(t, stack, { zapPrefetch: { intervalMs: 300, neighbors: 1 }, tune: { timeoutMs: 10_000 } })
    const events: ZapPrefetchEvent[] = []
    player.on('zap-prefetch', (e) => events.push(e))
    await connectAndLogin(player, 'alice', 'alice-pw')
    expect(player.diagnostics().zap.enabled).toBe(true)
    expect(events).toEqual([]) // the option itself is not echoed, only runtime switches
    await player.resolve('ch2')
    await waitFor(() => player.diagnostics().zap.warm.sort().join() === 'ch1,ch3', { timeoutMs: 20_000, message: 'both neighbors warmed' })
    await player.resolve('ch3') // one step up the ring: only the side we are heading to
    await waitFor(() => player.diagnostics().zap.warm.join() === 'ch1', { timeoutMs: 20_000, message: 'directional warm (wraps to ch1)' })

    player.setNetworkProfile({ expensive: true })
    expect(events.at(-1)).toEqual({ state: 'suspended', reason: 'metered' })
    await waitFor(() => player.diagnostics().zap.warm.length === 0, { timeoutMs: 5000, message: 'standing downloads dropped' })
    expect(player.diagnostics().zap).toMatchObject({ enabled: true, suspended: 'metered' })
    player.setNetworkProfile({ expensive: false })
    expect(events.at(-1)).toEqual({ state: 'resumed', reason: 'metered' })
    await waitFor(() => player.diagnostics().zap.warm.length === 1, { timeoutMs: 20_000, message: 'warm again' })

    player.setZapPrefetch(false)
    expect(events.at(-1)).toEqual({ enabled: false })
    await waitFor(() => player.diagnostics().zap.warm.length === 0, { timeoutMs: 5000, message: 'off' })
  })

  it('vod and redirect arm no zap prefetch', async (t) => {
    await api(stack, 'POST', '/api/streams', { id: 'partner', title: 'Partner', url: 'https://cdn.example/p.m3u8', order: 4 })
    await api(stack, 'POST', '/api/users/alice/grants', { streamId: 'partner' })
    const player = newPlayer(t, stack, { zapPrefetch: { intervalMs: 200 } })
    await connectAndLogin(player, 'alice', 'alice-pw')
    await player.resolve('partner')
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(player.diagnostics().zap.warm).toEqual([])
  })
})

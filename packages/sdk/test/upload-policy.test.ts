import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { UploadPolicyEvent } from '@arus/sdk'
import { cleanupAll, waitFor } from '@arus/testkit'
import { announcedOn } from './helpers/dht.js'
import { decode } from './helpers/ffmpeg.js'
import { api, connectAndLogin, createStack, newPlayer, panel, registerLive, runPanel, type Stack } from './helpers/stack.js'
import { startTestFeed, type TestFeed } from './helpers/test-feed.js'

// uploadPolicy (spec 3): 'reseed' announces feed topics so viewers fetch blocks from each other;
// 'client-only' joins unannounced. Bytes are counted per peer on the feed's cores.
const ctx = { onTestFinished: () => {} }
let stack: Stack

beforeAll(async () => {
  stack = await createStack(ctx)
  await panel(stack, ['create-user', 'alice'], 'alice-pw\n')
  await runPanel(ctx, stack)
}, 60_000)

afterAll(async () => { await cleanupAll() }, 60_000)

async function channel (t: { onTestFinished(fn: () => unknown): void }, id: string): Promise<TestFeed> {
  const feed = await startTestFeed(t, stack.testnet)
  await registerLive(t, stack, { streamId: id, feedKey: feed.feedKey, key: feed.encryptionKey, isLive: true, title: id })
  await api(stack, 'POST', '/api/users/alice/grants', { streamId: id })
  return feed
}

describe('upload policy', () => {
  it('reseed: a second viewer receives blocks from the first', async (t) => {
    const feed = await channel(t, 'shared')
    const first = newPlayer(t, stack, { tune: { timeoutMs: 10_000 } })
    await connectAndLogin(first, 'alice', 'alice-pw')
    const { url } = await first.resolve('shared')
    expect((await decode(url, 3)).code).toBe(0)
    const firstKey = first.diagnostics().publicKey as string
    await waitFor(async () => (await announcedOn(stack.testnet, feed.topic)).has(firstKey), { timeoutMs: 20_000, message: 'first viewer announced' })
    // The origin stops serving: whatever the second viewer gets now can only come from the first.
    await feed.stopSeeding()
    const second = newPlayer(t, stack, { tune: { timeoutMs: 10_000 } })
    await connectAndLogin(second, 'alice', 'alice-pw')
    const secondUrl = (await second.resolve('shared')).url
    const out = await decode(secondUrl, 1, 30_000)
    expect(out.code).toBe(0)
    const got = second.diagnostics().feed?.bytesByPeer[firstKey]
    expect(got?.downloaded ?? 0).toBeGreaterThan(10_000)
    expect(first.diagnostics().feed?.bytesByPeer[second.diagnostics().publicKey as string]?.uploaded ?? 0).toBeGreaterThan(10_000)
  })

  it('client-only announces nothing; the runtime switch re-joins topics and is echoed', async (t) => {
    const feed = await channel(t, 'private')
    const quiet = newPlayer(t, stack, { uploadPolicy: 'client-only', tune: { timeoutMs: 10_000 } })
    const loud = newPlayer(t, stack, { tune: { timeoutMs: 10_000 } })
    await Promise.all([connectAndLogin(quiet, 'alice', 'alice-pw'), connectAndLogin(loud, 'alice', 'alice-pw')])
    const [quietUrl, loudUrl] = await Promise.all([quiet.resolve('private'), loud.resolve('private')]).then((r) => r.map((x) => x.url))
    await Promise.all([decode(quietUrl as string, 2), decode(loudUrl as string, 2)])
    const quietKey = quiet.diagnostics().publicKey as string
    const loudKey = loud.diagnostics().publicKey as string
    await waitFor(async () => (await announcedOn(stack.testnet, feed.topic)).has(loudKey), { timeoutMs: 20_000, message: 'reseeding viewer announced' })
    const found = await announcedOn(stack.testnet, feed.topic)
    expect(found.has(feed.seederKey)).toBe(true)
    expect(found.has(quietKey)).toBe(false)
    expect(quiet.diagnostics().uploadPolicy).toBe('client-only')

    // Switch the reseeding viewer to client-only at runtime: it leaves the announcement.
    const echoes: UploadPolicyEvent[] = []
    loud.on('upload-policy', (e) => echoes.push(e))
    expect(await loud.setUploadPolicy('client-only')).toEqual({ policy: 'client-only', changed: true, rejoined: 1 })
    expect(echoes).toEqual([{ policy: 'client-only', rejoined: 1 }])
    await waitFor(async () => !(await announcedOn(stack.testnet, feed.topic)).has(loudKey), { timeoutMs: 20_000, message: 'unannounced' })
    expect((await decode(loudUrl as string, 2)).code).toBe(0) // playback goes on
    expect(await loud.setUploadPolicy('client-only')).toEqual({ policy: 'client-only', changed: false, rejoined: 0 })
    expect(await quiet.setUploadPolicy('reseed')).toMatchObject({ policy: 'reseed', changed: true, rejoined: 1 })
    await waitFor(async () => (await announcedOn(stack.testnet, feed.topic)).has(quietKey), { timeoutMs: 20_000, message: 'announced after switch' })
    await expect(quiet.setUploadPolicy('leech' as never)).rejects.toMatchObject({ code: 'SDK_INVALID_ARGUMENT' })
  })
})

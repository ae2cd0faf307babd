import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanupAll, createStack, startBroadcaster, startRepeater, waitFor, type Stack } from '@arus/testkit'

// Issue 42 "Done means": the repeater follows the operator unattended — a channel that joins a
// mirrored category is picked up, a feedKey rotation re-targets the mirror (the retired
// generation's blocks reclaimed), a deleted record is dropped and reclaimed — each from the
// catalog update that carries it. Real panel, broadcaster (ffmpeg) and repeater processes on a
// local testnet; every wait bounded.
const ctx = { onTestFinished: () => {} }
let stack: Stack

beforeAll(async () => {
  stack = await createStack(ctx, {})
}, 60_000)

afterAll(async () => { await cleanupAll() }, 60_000)

describe('the repeater follows the catalog', () => {
  it('picks up a channel in its category, follows a rotation, drops a deleted record', async (t) => {
    const rep = await startRepeater(t, { panel: stack.panel, channels: 'category:sports' })
    const bc = await startBroadcaster(t, { panel: stack.panel })
    const feedKey1 = await bc.channel('match', { hlsTime: 2, hlsListSize: 4, buffer: 'disk' })
    await bc.channel('weather', { hlsTime: 2, hlsListSize: 4 })
    await waitFor(async () => (await rep.health()).catalogLength > 0, { timeoutMs: 20_000, message: 'the repeater reads the catalog' })
    // Neither is in "sports" yet.
    await new Promise((resolve) => setTimeout(resolve, 2000))
    expect((await rep.health()).mirrors).toEqual([])

    await stack.panel.api('PATCH', '/api/streams/match', { category: ['Sports'] })
    const m1 = await rep.waitMirror('match', { feedKey: feedKey1, bytes: 1, timeoutMs: 30_000 })
    expect(m1.type).toBe('live')
    const seen = await rep.health()
    expect(seen.mirrors.map((m) => m.id)).toEqual(['match'])
    // The update that carried the category was the last one: no later append was needed.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect((await rep.health()).catalogLength).toBe(seen.catalogLength)

    const rotated = await bc.api<{ feedKey: string }>('POST', '/api/channels/match/rotate')
    expect(rotated.feedKey).not.toBe(feedKey1)
    await rep.waitMirror('match', { feedKey: rotated.feedKey, bytes: 1, timeoutMs: 30_000 })
    const afterRotate = (await rep.health()).mirrors
    expect(afterRotate.map((m) => m.feedKey)).toEqual([rotated.feedKey])
    await rep.proc!.waitForLine(new RegExp(`"event":"mirror\\.retargeted".*"feedKey":"${feedKey1}"`), 5000)

    await stack.panel.api('DELETE', '/api/streams/match')
    await waitFor(async () => (await rep.health()).mirrors.length === 0, { timeoutMs: 30_000, message: 'the deleted record dropped' })
    await rep.proc!.waitForLine(/"event":"mirror\.dropped".*"id":"match"/, 5000)
    expect((await rep.health()).diskUsedBytes).toBe(0)

    // What it holds is written down: a restart mirrors nothing it was not asked to.
    await rep.stop()
    await rep.start()
    await new Promise((resolve) => setTimeout(resolve, 2000))
    expect((await rep.health()).mirrors).toEqual([])
  }, 180_000)
})

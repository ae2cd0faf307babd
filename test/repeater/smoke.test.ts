import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanupAll, createStack, startBroadcaster, startRepeater, type Stack } from '@arus/testkit'

const ctx = { onTestFinished: () => {} }
let stack: Stack

beforeAll(async () => {
  stack = await createStack(ctx, { panel: { users: [{ name: 'alice', password: 'alice-pw' }] } })
}, 60_000)

afterAll(async () => { await cleanupAll() }, 60_000)

describe('repeater smoke', () => {
  it('mirrors a live channel', async (t) => {
    const bc = await startBroadcaster(t, { panel: stack.panel })
    await bc.channel('news', { hlsTime: 2, hlsListSize: 4 })
    const rep = await startRepeater(t, { panel: stack.panel })
    const m = await rep.waitMirror('news', { bytes: 100_000, timeoutMs: 60_000 })
    console.log(JSON.stringify(await rep.health()))
    expect(m.bytesHeld).toBeGreaterThan(0)
    console.log((await rep.metrics()).split('\n').filter((l) => l.startsWith('arus_repeater')).join('\n'))
  }, 120_000)
})

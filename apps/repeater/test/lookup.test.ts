import { describe, expect, it } from 'vitest'
import { cleanupAll, createStack, startRepeater, waitFor } from '@arus/testkit'
import { LONELY_REFRESH_MAX_MS, LONELY_REFRESH_MIN_MS, LonelyRefresh } from '../src/lookup.js'

describe('LonelyRefresh', () => {
  it('looks again at doubling intervals while nobody is there, and resets once someone is', () => {
    let now = 0
    let lonely = true
    let refreshes = 0
    const r = new LonelyRefresh({ refresh: async () => { refreshes++ } }, () => lonely, () => now)
    const at: number[] = []
    for (now = 0; now <= 200_000; now += 1000) if (r.tick()) at.push(now)
    expect(at.slice(0, 4)).toEqual([LONELY_REFRESH_MIN_MS, 15_000, 35_000, 75_000])
    expect(at[5]! - at[4]!).toBe(LONELY_REFRESH_MAX_MS)
    expect(refreshes).toBe(at.length)
    lonely = false
    expect(r.tick()).toBe(false)
    lonely = true
    now += 1000
    expect(r.tick()).toBe(false) // the backoff starts over: the next look is MIN_MS away
    now += LONELY_REFRESH_MIN_MS
    expect(r.tick()).toBe(true)
  })
})

describe('a repeater started while the panel is down', () => {
  it('finds the panel within seconds of its return, not hyperswarm\'s ten minutes', async (t) => {
    const ctx = { onTestFinished: () => {} }
    try {
      const stack = await createStack(ctx, {})
      await stack.panel.stop()
      const rep = await startRepeater(t, { panel: stack.panel })
      await new Promise((resolve) => setTimeout(resolve, 3000))
      expect((await rep.health()).catalogLength).toBe(0)
      await stack.panel.start()
      await waitFor(async () => (await rep.health()).catalogLength > 0, { timeoutMs: 30_000, intervalMs: 250, message: 'the repeater reads the catalog after the panel is back' })
    } finally {
      await cleanupAll()
    }
  }, 90_000)
})

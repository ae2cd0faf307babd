import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { RELAY_ACTIVE_MS, createEgressBudget } from '@arus/feed'

// The origin's upload budget (issue 42): answers leave at the configured average rate, a
// trusted relay's first; a cancelled one never leaves. On a fake clock: deterministic.

describe('createEgressBudget', () => {
  beforeEach(() => { vi.useFakeTimers({ now: 1_000_000 }) })
  afterEach(() => { vi.useRealTimers() })

  it('answers no faster than bytesPerSecond on average', async () => {
    const budget = createEgressBudget({ bytesPerSecond: 100_000, burstMs: 0 })
    const sentAt: number[] = []
    for (let i = 0; i < 20; i++) budget.admit(1, 10_000, () => { sentAt.push(Date.now()) })
    expect(sentAt).toHaveLength(1) // the first goes at once (into debt), the rest wait
    await vi.advanceTimersByTimeAsync(1_000)
    // 100 kB/s: ten more 10 kB answers in a second (the first one's debt paid, then one per 100 ms).
    expect(sentAt.length).toBeGreaterThanOrEqual(10)
    expect(sentAt.length).toBeLessThanOrEqual(11)
    await vi.advanceTimersByTimeAsync(1_000)
    expect(sentAt).toHaveLength(20)
    for (let i = 1; i < sentAt.length; i++) expect(sentAt[i]! - sentAt[i - 1]!).toBeGreaterThanOrEqual(99)
    expect(budget.stats()).toMatchObject({ admitted: 20, waited: 19, bytes: 200_000, queued: 0 })
    budget.close()
  })

  it('a relay (priority 0) goes before viewers waiting longer; a cancelled answer is skipped', async () => {
    const budget = createEgressBudget({ bytesPerSecond: 100_000, burstMs: 0 })
    const order: string[] = []
    budget.admit(1, 50_000, () => order.push('first')) // into debt for 500 ms
    let cancelled = false
    budget.admit(1, 10_000, () => order.push('viewer-a'))
    budget.admit(1, 10_000, () => order.push('viewer-gone'), () => cancelled)
    budget.admit(1, 10_000, () => order.push('viewer-b'))
    budget.admit(0, 10_000, () => order.push('relay'))
    cancelled = true
    await vi.advanceTimersByTimeAsync(2_000)
    expect(order).toEqual(['first', 'relay', 'viewer-a', 'viewer-b'])
    expect(budget.stats().skipped).toBe(1)
    budget.close()
  })

  it('saves up at most burstMs while idle; close() sends what waits and admits at once after', async () => {
    const budget = createEgressBudget({ bytesPerSecond: 100_000, burstMs: 200 })
    await vi.advanceTimersByTimeAsync(10_000) // idle: 20 kB saved, not 1 MB
    const sent: number[] = []
    for (let i = 0; i < 5; i++) budget.admit(1, 10_000, () => { sent.push(i) })
    expect(sent).toEqual([0, 1, 2]) // 20 kB of tokens: two answers, the third into debt
    budget.close()
    expect(sent).toEqual([0, 1, 2, 3, 4])
    budget.admit(1, 1_000_000, () => { sent.push(5) })
    expect(sent.at(-1)).toBe(5)
  })

  it('reserve: while a relay is served, viewers get at most their share; once it is quiet, all of it', async () => {
    const budget = createEgressBudget({ bytesPerSecond: 100_000, burstMs: 0, reserve: 0.75 })
    const viewer: number[] = []
    const relay: number[] = []
    // A relay asking 50 kB/s (half the budget) and viewers asking far more than the rest.
    for (let i = 0; i < 200; i++) budget.admit(1, 10_000, () => { viewer.push(Date.now()) })
    for (let s = 0; s < 4; s++) {
      for (let i = 0; i < 5; i++) budget.admit(0, 10_000, () => { relay.push(Date.now()) })
      await vi.advanceTimersByTimeAsync(1_000)
    }
    // Every relay answer left within its second; viewers got about a quarter of the budget (plus
    // the one answer sent before the relay came and the second of share saved up while idle).
    expect(relay).toHaveLength(20)
    const viewerBytes = viewer.length * 10_000
    expect(viewerBytes).toBeLessThanOrEqual(0.25 * 100_000 * 4 + 25_000 + 10_000)
    expect(viewerBytes).toBeGreaterThanOrEqual(0.25 * 100_000 * 4 - 20_000)
    // The relay quiet for longer than RELAY_ACTIVE_MS: viewers get the whole budget again.
    await vi.advanceTimersByTimeAsync(RELAY_ACTIVE_MS + 500)
    const before = viewer.length
    await vi.advanceTimersByTimeAsync(1_000)
    expect(viewer.length - before).toBeGreaterThanOrEqual(9)
    budget.close()
  })

  it('without reserve, viewers admitted first take what the relay does not', async () => {
    const budget = createEgressBudget({ bytesPerSecond: 100_000, burstMs: 0 })
    const viewer: number[] = []
    for (let i = 0; i < 200; i++) budget.admit(1, 10_000, () => { viewer.push(Date.now()) })
    for (let s = 0; s < 4; s++) {
      for (let i = 0; i < 5; i++) budget.admit(0, 10_000, () => {})
      await vi.advanceTimersByTimeAsync(1_000)
    }
    // Half the budget went to viewers: what the relay did not ask for at that instant.
    expect(viewer.length * 10_000).toBeGreaterThan(0.4 * 100_000 * 4)
    budget.close()
  })

  it('refuses a rate it cannot mean', () => {
    expect(() => createEgressBudget({ bytesPerSecond: 10 })).toThrow(/bytesPerSecond/)
    expect(() => createEgressBudget({ bytesPerSecond: Number.NaN })).toThrow(/bytesPerSecond/)
    expect(() => createEgressBudget({ bytesPerSecond: 100_000, burstMs: -1 })).toThrow(/burstMs/)
    expect(() => createEgressBudget({ bytesPerSecond: 100_000, reserve: 1 })).toThrow(/reserve/)
  })
})

import { afterEach, describe, expect, it, vi } from 'vitest'
import { Tuner, type TunerDeps } from '../../src/tuner.js'

afterEach(() => { vi.useRealTimers() })

function harness (playable: (attempt: number) => boolean, over: Partial<TunerDeps> = {}) {
  const log: string[] = []
  let attempt = 0
  let peers = 1
  const deps: TunerDeps = {
    config: { timeoutMs: 1000, relookupMinMs: 300, relookupMaxMs: 1000, rescanMs: 2000 },
    status: (s) => log.push(s),
    fail: (err) => log.push(`error:${err.code}`),
    playable: async (ms, signal) => {
      const ok = playable(attempt++)
      if (ok) return true
      await new Promise<void>((resolve) => { const t = setTimeout(resolve, ms); signal.addEventListener('abort', () => { clearTimeout(t); resolve() }) })
      return false
    },
    peers: () => peers,
    retune: async () => { log.push('evict') },
    reconnect: async () => { log.push('drop-connections') },
    relookup: async () => { log.push('relookup') },
    ...over
  }
  return { deps, log, setPeers: (n: number) => { peers = n } }
}

/** A started tuner (fake timers) on an always-playable feed that logs each mesh refresh. */
function refreshing () {
  vi.useFakeTimers()
  const h = harness(() => true, { refresh: async () => { h.log.push('refresh') } })
  const tuner = new Tuner(h.deps)
  tuner.start()
  return { h, tuner, refreshes: () => h.log.filter((l) => l === 'refresh').length }
}

describe('tune ladder', () => {
  it('open → ready when the feed is playable at once', async () => {
    const h = harness(() => true)
    const tuner = new Tuner(h.deps)
    tuner.start()
    await vi.waitFor(() => expect(h.log).toContain('feed:ready'))
    expect(h.log.slice(0, 2)).toEqual(['feed:open', 'feed:ready'])
    tuner.stop()
  })

  it('walks open → retune (evict) → reconnect (fresh connections) → friendly error, with paced re-lookups', async () => {
    vi.useFakeTimers()
    const h = harness(() => false)
    const tuner = new Tuner(h.deps)
    tuner.start()
    await vi.advanceTimersByTimeAsync(3500)
    const states = h.log.filter((l) => !['relookup'].includes(l))
    expect(states).toEqual(['feed:open', 'feed:retune', 'evict', 'feed:reconnect', 'drop-connections', 'error:SDK_TUNE_TIMEOUT'])
    // Re-lookups at 300, 900 (+600), 1900 and 2900 ms (+1000, the cap), none after the ladder ended.
    expect(h.log.filter((l) => l === 'relookup')).toHaveLength(4)
    tuner.stop()
  })

  it('recovers on the second attempt', async () => {
    vi.useFakeTimers()
    const h = harness((n) => n === 1)
    const tuner = new Tuner(h.deps)
    tuner.start()
    await vi.advanceTimersByTimeAsync(1500)
    expect(h.log.filter((l) => l.startsWith('feed:'))).toEqual(['feed:open', 'feed:retune', 'feed:ready'])
    tuner.stop()
  })

  it('zero peers for rescanMs while ready → feed:rescan, a fresh lookup and the ladder again', async () => {
    vi.useFakeTimers()
    const h = harness((n) => n === 0 || n >= 2)
    const tuner = new Tuner(h.deps)
    tuner.start()
    await vi.advanceTimersByTimeAsync(100)
    h.setPeers(0)
    await vi.advanceTimersByTimeAsync(3600)
    expect(h.log.filter((l) => l.startsWith('feed:'))).toEqual(['feed:open', 'feed:ready', 'feed:rescan', 'feed:retune', 'feed:ready'])
    expect(h.log).toContain('relookup')
    tuner.stop()
  })

  it('rescanMs 0 disables the rescan', async () => {
    vi.useFakeTimers()
    const h = harness(() => true)
    h.deps.config.rescanMs = 0
    const tuner = new Tuner(h.deps)
    tuner.start()
    h.setPeers(0)
    await vi.advanceTimersByTimeAsync(60_000)
    expect(h.log.filter((l) => l.startsWith('feed:'))).toEqual(['feed:open', 'feed:ready'])
    tuner.stop()
  })

  it('stop() ends the ladder silently', async () => {
    vi.useFakeTimers()
    const h = harness(() => false)
    const tuner = new Tuner(h.deps)
    tuner.start()
    await vi.advanceTimersByTimeAsync(500)
    tuner.stop()
    await vi.advanceTimersByTimeAsync(10_000)
    expect(h.log.filter((l) => l !== 'relookup')).toEqual(['feed:open'])
  })

  it('while ready, refreshes the mesh on a backoff (2 s doubling to the 60 s cap) and stops when the feed leaves ready', async () => {
    const { h, tuner, refreshes } = refreshing()
    await vi.advanceTimersByTimeAsync(0)
    expect(h.log).toContain('feed:ready')
    await vi.advanceTimersByTimeAsync(1_900)
    expect(refreshes()).toBe(0)
    await vi.advanceTimersByTimeAsync(200) // 2 s
    expect(refreshes()).toBe(1)
    await vi.advanceTimersByTimeAsync(4_000) // 6 s
    expect(refreshes()).toBe(2)
    // 14, 30, 62, 122, 182 s: the interval doubles to the 60 s cap, then stays there.
    await vi.advanceTimersByTimeAsync(176_000)
    expect(refreshes()).toBe(7)
    // Zero peers → feed:rescan: the refresh chain ends with the ready state (the rescan looks up itself).
    h.setPeers(0)
    await vi.advanceTimersByTimeAsync(2_500)
    expect(h.log).toContain('feed:rescan')
    const atRescan = refreshes()
    tuner.stop()
    await vi.advanceTimersByTimeAsync(300_000)
    expect(refreshes()).toBe(atRescan)
    expect(h.log.filter((l) => l === 'relookup').length).toBeGreaterThan(0)
  })

  it('stop() ends the mesh refresh', async () => {
    const { tuner, refreshes } = refreshing()
    await vi.advanceTimersByTimeAsync(2_100)
    expect(refreshes()).toBe(1)
    tuner.stop()
    await vi.advanceTimersByTimeAsync(600_000)
    expect(refreshes()).toBe(1)
  })
})

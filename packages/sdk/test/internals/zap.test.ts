import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ZapPrefetchEvent } from '@arus/sdk'
import { resolveZap } from '../../src/options.js'
import { ZapPrefetch, type WarmHandle, type ZapDeps } from '../../src/zap.js'

afterEach(() => { vi.useRealTimers() })

function harness () {
  vi.useFakeTimers()
  const events: ZapPrefetchEvent[] = []
  const warm = new Set<string>()
  let active: string | null = 'b'
  let advancedAt: number | null = Date.now()
  let headroom: number | null = 10
  const deps: ZapDeps = {
    now: () => Date.now(),
    emit: (e) => events.push(e),
    ring: () => ['a', 'b', 'c', 'd', 'e'],
    activeId: () => active,
    activeAdvance: async () => advancedAt,
    warm: async (id): Promise<WarmHandle> => {
      warm.add(id)
      return { id, tick: async () => headroom, adopt: () => `session:${id}`, close: async () => { warm.delete(id) } }
    }
  }
  const zap = new ZapPrefetch(deps)
  return {
    zap,
    events,
    warm,
    setActive: (id: string | null) => { active = id },
    advance: () => { advancedAt = Date.now() },
    setHeadroom: (h: number | null) => { headroom = h }
  }
}

const config = (o = {}) => resolveZap({ intervalMs: 1000, stallMs: 3000, resumeMs: 5000, minHeadroom: 3, ...o })

describe('zap prefetch', () => {
  it('warms one neighbor on each side, echoes the switch, and drops everything when off', async () => {
    const h = harness()
    h.zap.set(config())
    await vi.advanceTimersByTimeAsync(10)
    expect(h.events[0]).toEqual({ enabled: true })
    expect([...h.warm].sort()).toEqual(['a', 'c'])
    h.zap.set(null)
    await vi.advanceTimersByTimeAsync(10)
    expect(h.events.at(-1)).toEqual({ enabled: false })
    expect(h.warm.size).toBe(0)
    await h.zap.close()
  })

  it('neighbors: N per side, wrapping; directional once the surf direction is known; a jump resets', async () => {
    const h = harness()
    h.zap.set(config({ neighbors: 2 }))
    expect(h.zap.neighbors().sort()).toEqual(['a', 'c', 'd', 'e'])
    h.setActive('c')
    h.zap.noteZap('b', 'c') // one step up
    expect(h.zap.neighbors()).toEqual(['d', 'e'])
    h.setActive('b')
    h.zap.noteZap('c', 'b') // one step down
    expect(h.zap.neighbors()).toEqual(['a', 'e'])
    h.setActive('e')
    h.zap.noteZap('b', 'e') // menu jump
    expect(h.zap.neighbors().sort()).toEqual(['a', 'b', 'c', 'd'])
    h.setActive('a')
    h.zap.noteZap('e', 'a') // wraps: still one step up
    expect(h.zap.neighbors()).toEqual(['b', 'c'])
    await h.zap.close()
  })

  it('non-directional keeps both sides', () => {
    const h = harness()
    h.zap.set(config({ directional: false }))
    h.setActive('c')
    h.zap.noteZap('b', 'c')
    expect(h.zap.neighbors().sort()).toEqual(['b', 'd'])
    void h.zap.close()
  })

  it("metered: suspended with reason 'metered' (downloads dropped, tick kept), resumed when cheap", async () => {
    const h = harness()
    const advancing = setInterval(h.advance, 500)
    h.zap.set(config())
    await vi.advanceTimersByTimeAsync(10)
    expect(h.warm.size).toBe(2)
    h.zap.setExpensive(true)
    await vi.advanceTimersByTimeAsync(3000)
    expect(h.events).toContainEqual({ state: 'suspended', reason: 'metered' })
    expect(h.warm.size).toBe(0)
    h.zap.setExpensive(false)
    await vi.advanceTimersByTimeAsync(10)
    expect(h.events.at(-1)).toEqual({ state: 'resumed', reason: 'metered' })
    expect(h.warm.size).toBe(2)
    clearInterval(advancing)
    await h.zap.close()
  })

  it("stall: the active playlist stops advancing for stallMs → 'stall'; a clean advance of resumeMs lifts it", async () => {
    const h = harness()
    h.zap.set(config())
    await vi.advanceTimersByTimeAsync(3500)
    expect(h.events).toContainEqual({ state: 'suspended', reason: 'stall' })
    expect(h.warm.size).toBe(0)
    const advancing = setInterval(h.advance, 500)
    await vi.advanceTimersByTimeAsync(4000)
    expect(h.events.filter((e) => 'state' in e && e.state === 'resumed')).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(2500)
    expect(h.events.at(-1)).toEqual({ state: 'resumed', reason: 'stall' })
    clearInterval(advancing)
    await h.zap.close()
  })

  it("thin: a neighbor slower than minHeadroom × realtime → 'thin'", async () => {
    const h = harness()
    const advancing = setInterval(h.advance, 500)
    h.setHeadroom(1.5)
    h.zap.set(config())
    await vi.advanceTimersByTimeAsync(10)
    expect(h.events).toContainEqual({ state: 'suspended', reason: 'thin' })
    expect(h.warm.size).toBe(0)
    h.setHeadroom(10)
    await vi.advanceTimersByTimeAsync(6000)
    expect(h.events.at(-1)).toEqual({ state: 'resumed', reason: 'thin' })
    clearInterval(advancing)
    await h.zap.close()
  })

  it('does nothing while no live P2P stream is active', async () => {
    const h = harness()
    h.setActive(null)
    h.zap.set(config())
    await vi.advanceTimersByTimeAsync(5000)
    expect(h.warm.size).toBe(0)
    expect(h.events).toEqual([{ enabled: true }])
    await h.zap.close()
  })
})

it('enabling on a metered network reports the suspension at once', async () => {
  const h = harness()
  h.zap.setExpensive(true)
  h.zap.set(config())
  await vi.advanceTimersByTimeAsync(2000)
  expect(h.events).toEqual([{ enabled: true }, { state: 'suspended', reason: 'metered' }])
  expect(h.warm.size).toBe(0)
  await h.zap.close()
})

it('a zap to a warmed neighbor hands its open feed over instead of closing it', async () => {
  const h = harness()
  h.zap.set(config())
  await vi.advanceTimersByTimeAsync(10)
  expect(h.zap.take('c')).toBe('session:c')
  expect(h.zap.warmIds()).toEqual(['a'])
  expect(h.warm.has('c')).toBe(true) // not closed: the player owns it now
  expect(h.zap.take('e')).toBeNull()
  await h.zap.close()
})

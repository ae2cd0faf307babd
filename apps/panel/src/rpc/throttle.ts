/**
 * Login throttle (spec 1 "Authentication" 2): LOCKOUT_THRESHOLD attempts per
 * LOCKOUT_SECONDS, keyed per username and per peer. A successful session clears the
 * keys it used. Memory is bounded: past `maxKeys` the oldest window is forgotten.
 */
export interface Throttle {
  /** Seconds until every locked key among `keys` frees (the longest wait), or 0 when none is locked. */
  retryAfter(keys: string[]): number
  hit(keys: string[]): void
  reset(keys: string[]): void
}

interface Window { count: number; startedAt: number }

export function createThrottle (init: { threshold: number; windowSeconds: number; now?: () => number; maxKeys?: number }): Throttle {
  const now = init.now ?? Date.now
  const windowMs = init.windowSeconds * 1000
  const maxKeys = init.maxKeys ?? 100_000
  const windows = new Map<string, Window>()

  const current = (key: string): Window | null => {
    const w = windows.get(key)
    if (!w) return null
    if (now() - w.startedAt >= windowMs) { windows.delete(key); return null }
    return w
  }

  return {
    retryAfter (keys) {
      let wait = 0
      for (const key of keys) {
        const w = current(key)
        if (w && w.count >= init.threshold) wait = Math.max(wait, Math.ceil((w.startedAt + windowMs - now()) / 1000))
      }
      return wait
    },
    hit (keys) {
      for (const key of keys) {
        const w = current(key)
        if (w) { w.count++; continue }
        if (windows.size >= maxKeys) windows.delete(windows.keys().next().value as string)
        windows.set(key, { count: 1, startedAt: now() })
      }
    },
    reset (keys) { for (const key of keys) windows.delete(key) }
  }
}

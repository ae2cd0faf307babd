/**
 * Login throttle (spec 1 "Authentication" 2): at most `threshold` attempts per
 * `windowSeconds`, counted per key (the kit keys on the login name and on the client
 * address). A success resets the keys it used. Memory is bounded: past `maxKeys` the
 * oldest window is forgotten.
 */
export interface Lockout {
  /** Seconds until every locked key among `keys` frees (the longest wait); 0 when none is locked. */
  retryAfter(keys: readonly string[]): number
  /** Counts one attempt against each key. */
  hit(keys: readonly string[]): void
  /** Forgets the keys (after a successful login). */
  reset(keys: readonly string[]): void
}

/** Options of {@link createLockout}. */
export interface LockoutInit {
  /** Attempts allowed per window (LOCKOUT_THRESHOLD). */
  threshold: number
  /** Window length in seconds (LOCKOUT_SECONDS). */
  windowSeconds: number
  /** Clock in epoch ms (default `Date.now`). */
  now?: () => number
  /** Keys remembered at most (default 100000). */
  maxKeys?: number
}

interface Window { count: number; startedAt: number }

export function createLockout (init: LockoutInit): Lockout {
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
        if (w && w.count >= init.threshold) wait = Math.max(wait, Math.max(1, Math.ceil((w.startedAt + windowMs - now()) / 1000)))
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

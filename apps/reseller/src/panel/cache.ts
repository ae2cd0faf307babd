import type { ResellerCore } from '../core.js'

/**
 * The catalog and packages passthroughs (spec 2 "Limits": cached 60 seconds): one panel call
 * per path per TTL however many principals ask; concurrent misses share one call; a failure is
 * not cached.
 */
export function createPanelCache (core: ResellerCore, ttlMs: number) {
  const entries = new Map<string, { at: number; value: Promise<Record<string, unknown>> }>()
  return {
    get (path: string): Promise<Record<string, unknown>> {
      const hit = entries.get(path)
      if (hit && core.now() - hit.at < ttlMs) return hit.value
      const value = core.panel.call<Record<string, unknown>>('GET', path)
      entries.set(path, { at: core.now(), value })
      value.catch(() => { if (entries.get(path)?.value === value) entries.delete(path) })
      return value
    }
  }
}

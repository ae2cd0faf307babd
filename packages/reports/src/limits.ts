import { MAX_THROTTLED_REPORTERS } from './constants.js'

/**
 * The per-reporter throttle (spec 1 "Storm behavior" layer 2): at most `max` reports per
 * `windowMs` per pseudonym, a sliding window of timestamps. Memory is bounded: past
 * {@link MAX_THROTTLED_REPORTERS} reporters the one seen longest ago is forgotten.
 */
export interface ReporterThrottle {
  /** Counts a report now; 0 when allowed, else the whole seconds until the next one is. */
  hit(reporter: string, now: number): number
}

export function createReporterThrottle (max: number, windowMs: number): ReporterThrottle {
  const seen = new Map<string, number[]>()
  return {
    hit (reporter, now) {
      const times = (seen.get(reporter) ?? []).filter((t) => now - t < windowMs)
      seen.delete(reporter) // re-inserted below: Map order is least recently seen first
      if (times.length >= max) {
        seen.set(reporter, times)
        return Math.max(1, Math.ceil((times[0]! + windowMs - now) / 1000))
      }
      times.push(now)
      seen.set(reporter, times)
      if (seen.size > MAX_THROTTLED_REPORTERS) seen.delete(seen.keys().next().value!)
      return 0
    }
  }
}

/**
 * The panel-wide bucket (layer 4): `perMinute` tokens, refilled continuously. An empty
 * bucket sheds: the report is acknowledged, counted and dropped.
 */
export interface GlobalBucket { take(now: number): boolean }

export function createGlobalBucket (perMinute: number, now: number): GlobalBucket {
  let tokens = perMinute
  let at = now
  return {
    take (t) {
      tokens = Math.min(perMinute, tokens + ((t - at) * perMinute) / 60_000)
      at = t
      if (tokens < 1) return false
      tokens -= 1
      return true
    }
  }
}

import b4a from 'b4a'
import { EPG_DEFAULTS } from './constants.js'
import { parseEpgDocument, pickNowNext, type EpgEntry, type EpgSchedules } from './epg-parse.js'

export type { EpgEntry } from './epg-parse.js'

/**
 * The EPG service (spec 3 "EPG data"): the schedule of a channel from its record's epgUrl/epgId,
 * fetched over https with a per-URL cache and ETag revalidation. A missing or unreachable feed
 * yields no guide; playback never depends on it.
 */
export interface EpgResult {
  data: { now: EpgEntry | null; next: EpgEntry[] }
  /** True once a fetch attempt for the URL has concluded (with or without a guide). */
  loaded: boolean
}

/** The subset of `fetch` the service uses (injectable for tests). */
export type FetchLike = (url: string, init: { headers: Record<string, string>; signal: AbortSignal }) => Promise<{
  status: number
  headers: { get(name: string): string | null }
  body?: { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> } } | null
  arrayBuffer(): Promise<ArrayBuffer>
}>

export interface EpgInit {
  /** Largest document accepted. Default 8 MiB. */
  maxBytes?: number
  /** Refetch (revalidate) a URL at most this often. Default 5 min. */
  minRefetchMs?: number
  /** Keep serving the last good document this long while refetches fail. Default 3 h. */
  maxAgeMs?: number
  /** Per-fetch timeout. Default 15 s. */
  fetchTimeoutMs?: number
  /** Entries in `next`. Default 4. */
  nextCount?: number
  /** Default globalThis.fetch. */
  fetchImpl?: FetchLike
  /** Clock in epoch ms. Default Date.now. */
  now?: () => number
}

export interface EpgService {
  /** Now/next of `epgId` in the feed at `epgUrl`, fetching or revalidating when due. Never throws. */
  useEpg(epgUrl: string, epgId: string, overrides?: EpgInit): Promise<EpgResult>
  /** What the cache holds now, without fetching (`loaded` false before the first fetch). */
  peek(epgUrl: string, epgId: string, overrides?: EpgInit): EpgResult
  clear(): void
}

interface CacheEntry {
  schedules: EpgSchedules | null
  etag: string | null
  /** Last fetch attempt (success, 304 or failure): refetches are spaced by minRefetchMs. */
  fetchedAt: number
  /** Last time the document was confirmed (200 or 304). */
  goodAt: number
  inflight: Promise<void> | null
}

const EMPTY: EpgResult['data'] = { now: null, next: [] }

export function createEpgService (init: EpgInit = {}): EpgService {
  const cache = new Map<string, CacheEntry>()
  const settings = (o: EpgInit = {}) => {
    const s = { ...EPG_DEFAULTS, fetchImpl: undefined as FetchLike | undefined, now: Date.now, ...strip(init), ...strip(o) }
    return { ...s, fetchImpl: s.fetchImpl ?? (globalThis.fetch as unknown as FetchLike | undefined) }
  }
  type Settings = ReturnType<typeof settings>

  const result = (entry: CacheEntry | undefined, epgId: string, s: Settings): EpgResult => {
    if (entry === undefined) return { data: EMPTY, loaded: false }
    const fresh = entry.schedules !== null && s.now() - entry.goodAt <= s.maxAgeMs
    const schedule = fresh ? entry.schedules?.get(epgId) : undefined
    return { data: schedule === undefined ? EMPTY : pickNowNext(schedule, s.now(), s.nextCount), loaded: entry.fetchedAt > 0 }
  }

  const refresh = async (url: string, entry: CacheEntry, s: Settings): Promise<void> => {
    entry.fetchedAt = s.now()
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), s.fetchTimeoutMs)
    try {
      if (s.fetchImpl === undefined || !/^https?:\/\//i.test(url)) return
      const headers: Record<string, string> = { accept: 'application/json' }
      if (entry.etag !== null && entry.schedules !== null) headers['if-none-match'] = entry.etag
      const res = await s.fetchImpl(url, { headers, signal: controller.signal })
      if (res.status === 304 && entry.schedules !== null) { entry.goodAt = s.now(); return }
      if (res.status !== 200) return
      const declared = Number(res.headers.get('content-length') ?? NaN)
      if (Number.isFinite(declared) && declared > s.maxBytes) return
      const text = await readCapped(res, s.maxBytes)
      if (text === null) return
      const schedules = parseEpgDocument(text)
      if (schedules === null) return
      entry.schedules = schedules
      entry.etag = res.headers.get('etag')
      entry.goodAt = s.now()
    } catch {
      // unreachable, timed out or malformed: keep the last good document until maxAgeMs
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    async useEpg (epgUrl, epgId, overrides) {
      const s = settings(overrides)
      let entry = cache.get(epgUrl)
      if (entry === undefined) {
        entry = { schedules: null, etag: null, fetchedAt: 0, goodAt: 0, inflight: null }
        cache.set(epgUrl, entry)
      }
      const due = entry.fetchedAt === 0 || s.now() - entry.fetchedAt >= s.minRefetchMs
      if (due && entry.inflight === null) {
        const current = entry
        current.inflight = refresh(epgUrl, current, s).finally(() => { current.inflight = null })
      }
      if (entry.inflight !== null) await entry.inflight
      return result(entry, epgId, s)
    },
    peek (epgUrl, epgId, overrides) {
      return result(cache.get(epgUrl), epgId, settings(overrides))
    },
    clear () { cache.clear() }
  }
}

let shared: EpgService | null = null

/**
 * `useEpg(epgUrl, epgId)` → `{ data: { now, next[] }, loaded }`, through a process-wide service
 * (one document cache per URL) unless `opts.service` is given; other options apply to this call.
 */
export function useEpg (epgUrl: string, epgId: string, opts: EpgInit & { service?: EpgService } = {}): Promise<EpgResult> {
  const { service, ...overrides } = opts
  shared ??= createEpgService()
  return (service ?? shared).useEpg(epgUrl, epgId, overrides)
}

function strip<T extends object> (o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>
}

async function readCapped (res: Awaited<ReturnType<FetchLike>>, maxBytes: number): Promise<string | null> {
  const chunks: Uint8Array[] = []
  let total = 0
  const body = res.body
  if (body !== null && body !== undefined && typeof body.getReader === 'function') {
    const reader = body.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      if (value === undefined) continue
      total += value.byteLength
      if (total > maxBytes) { await reader.cancel().catch(() => {}); return null }
      chunks.push(value)
    }
  } else {
    const bytes = new Uint8Array(await res.arrayBuffer())
    if (bytes.byteLength > maxBytes) return null
    chunks.push(bytes)
    total = bytes.byteLength
  }
  const all = new Uint8Array(total)
  let at = 0
  for (const c of chunks) { all.set(c, at); at += c.byteLength }
  return b4a.toString(all, 'utf8')
}

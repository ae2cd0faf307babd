/**
 * EPG documents (spec 3 "EPG data"; the feed format of spec 1 "Source sync policy"): an object
 * `{ channels: [...] }` or a bare array of entries `{ id, epg: [{ title, start, stop }] }` with
 * ISO times. Entries without a usable id or schedule are ignored; so are malformed programmes.
 */
export interface EpgEntry { title: string; start: string; stop: string }

/** epgId → programmes sorted by start (with parsed times for lookups). */
export type EpgSchedules = Map<string, Array<EpgEntry & { startMs: number; stopMs: number }>>

/** Parses a document; null when it is not JSON or not of the feed shape. */
export function parseEpgDocument (text: string): EpgSchedules | null {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch {
    return null
  }
  const channels = Array.isArray(doc) ? doc : (doc !== null && typeof doc === 'object' && Array.isArray((doc as { channels?: unknown }).channels)) ? (doc as { channels: unknown[] }).channels : null
  if (channels === null) return null
  const out: EpgSchedules = new Map()
  for (const ch of channels) {
    if (ch === null || typeof ch !== 'object') continue
    const { id, epg } = ch as { id?: unknown; epg?: unknown }
    const key = typeof id === 'string' ? id : typeof id === 'number' && Number.isSafeInteger(id) ? String(id) : null
    if (key === null || key === '' || !Array.isArray(epg) || out.has(key)) continue
    const programmes = epg.flatMap((p) => {
      const e = toEntry(p)
      return e === null ? [] : [e]
    }).sort((a, b) => a.startMs - b.startMs)
    out.set(key, programmes)
  }
  return out
}

function toEntry (p: unknown): (EpgEntry & { startMs: number; stopMs: number }) | null {
  if (p === null || typeof p !== 'object') return null
  const { title, start, stop } = p as { title?: unknown; start?: unknown; stop?: unknown }
  if (typeof title !== 'string' || typeof start !== 'string' || typeof stop !== 'string') return null
  const startMs = Date.parse(start)
  const stopMs = Date.parse(stop)
  if (!Number.isFinite(startMs) || !Number.isFinite(stopMs) || stopMs <= startMs) return null
  return { title: title.slice(0, 500), start, stop, startMs, stopMs }
}

/** The programme on air at `now` and the next `count` after it (plain {title, start, stop}). */
export function pickNowNext (schedule: ReadonlyArray<EpgEntry & { startMs: number; stopMs: number }>, now: number, count: number): { now: EpgEntry | null; next: EpgEntry[] } {
  const plain = (e: EpgEntry): EpgEntry => ({ title: e.title, start: e.start, stop: e.stop })
  const current = schedule.find((e) => e.startMs <= now && now < e.stopMs) ?? null
  const after = current === null ? now : current.stopMs
  const next = schedule.filter((e) => e.startMs >= after && e !== current).slice(0, Math.max(0, count)).map(plain)
  return { now: current === null ? null : plain(current), next }
}

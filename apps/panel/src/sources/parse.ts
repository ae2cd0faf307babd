import { DESCRIPTION_MAX, EPG_ID_MAX, HttpsUrl, sourceStreamId, TITLE_MAX, URL_MAX } from '@arus/catalog'
import { blake2b256, toHex } from '@arus/crypto'

/**
 * Remote source feeds (spec 1 "Source sync policy" rules 1-3), parsed into entries. Two
 * formats, told apart by content: JSON (an object with `channels`, or a bare array) and M3U
 * playlists (`#EXTM3U`, with `#EXTINF` tvg attributes). Pure: no I/O. Every value an entry
 * hands the catalog is checked here with the catalog's own schemas (ids, https URLs, caps),
 * so one bad entry is skipped or loses its art instead of failing the whole sync's batch.
 */

/** Imported title cap (spec 1 "Limits"): the catalog's title cap. */
export const IMPORTED_TITLE_MAX = TITLE_MAX

/** One accepted feed entry, in feed order. */
export interface FeedEntry {
  /** The entry's id in the feed (the stream id is `<prefix><feedId>`). */
  feedId: string
  id: string
  /** Position among accepted entries: the record's order (rule 2). */
  position: number
  title: string
  /** The https HLS URL (a redirect channel). */
  url: string
  /** https logo, or '' when absent or refused (rule 1: an invalid logo loses only the art, see {@link ParsedFeed.dropped}). */
  logo: string
  /** Seeded on first import only (rule 4). */
  description: string
  epgUrl?: string
  epgId?: string
}

/** A field an accepted entry lost because the catalog would refuse it. */
export interface DroppedField {
  feedId: string
  id: string
  field: 'logo'
  reason: string
}

/** A parsed feed: the accepted entries, per refused entry why (rule 3), per lost field why (rule 1). */
export interface ParsedFeed {
  format: 'json' | 'm3u'
  entries: FeedEntry[]
  skipped: Array<{ feedId: string | null; reason: string }>
  dropped: DroppedField[]
}

/** Thrown for a feed that cannot be read at all (invalid JSON, garbled M3U): the last good state stays. */
export class FeedParseError extends Error {}

/** The catalog's own rule for url, logo and epgUrl (HttpsUrl): what passes here, the writer stores. */
const isHttps = (v: unknown): v is string => typeof v === 'string' && HttpsUrl.safeParse(v).success

/** Why a refused `field` is refused: not https at all, or an https-looking value the catalog's finer rule refuses. */
function httpsProblem (field: string, v: unknown): string {
  if (typeof v !== 'string' || !v.toLowerCase().startsWith('https://')) return `${field} must be https`
  return `${field} must be https: a valid URL without spaces or control characters, at most ${URL_MAX} characters`
}

const present = (v: unknown) => v !== undefined && v !== null && v !== ''

const clean = (s: string, max: number) => [...s].filter((c) => c.charCodeAt(0) >= 0x20 && c.charCodeAt(0) !== 0x7f).join('').trim().slice(0, max)

interface RawEntry { id: unknown; url: unknown; name: unknown; logo: unknown; description: unknown; epgUrl?: string; epgId?: string }

function accept (raw: readonly RawEntry[], prefix: string, format: ParsedFeed['format']): ParsedFeed {
  const out: ParsedFeed = { format, entries: [], skipped: [], dropped: [] }
  const seen = new Set<string>()
  for (const r of raw) {
    const feedId = typeof r.id === 'number' && Number.isSafeInteger(r.id) ? String(r.id) : typeof r.id === 'string' ? r.id : null
    if (feedId === null || feedId === '') { out.skipped.push({ feedId: null, reason: 'no id' }); continue }
    let id: string
    try {
      id = sourceStreamId(prefix, feedId)
    } catch {
      out.skipped.push({ feedId: feedId.slice(0, 64), reason: 'bad id: letters, digits, _ . - and at most 64 characters with the prefix' })
      continue
    }
    if (seen.has(id)) { out.skipped.push({ feedId, reason: 'duplicate id' }); continue }
    if (!isHttps(r.url)) { out.skipped.push({ feedId, reason: httpsProblem('url', r.url) }); continue }
    seen.add(id)
    const title = typeof r.name === 'string' && clean(r.name, IMPORTED_TITLE_MAX) !== '' ? clean(r.name, IMPORTED_TITLE_MAX) : feedId
    const logo = isHttps(r.logo) ? r.logo : ''
    if (logo === '' && present(r.logo)) out.dropped.push({ feedId, id, field: 'logo', reason: httpsProblem('logo', r.logo) })
    out.entries.push({
      feedId,
      id,
      position: Math.min(out.entries.length, 9999),
      title,
      url: r.url,
      logo,
      description: typeof r.description === 'string' ? clean(r.description, DESCRIPTION_MAX) : '',
      ...(r.epgUrl !== undefined && r.epgId !== undefined ? { epgUrl: r.epgUrl, epgId: r.epgId } : {})
    })
  }
  return out
}

function parseJson (text: string, prefix: string): ParsedFeed {
  let doc: unknown
  try { doc = JSON.parse(text) } catch { throw new FeedParseError('invalid JSON') }
  const list = Array.isArray(doc) ? doc : (doc !== null && typeof doc === 'object' && Array.isArray((doc as { channels?: unknown }).channels)) ? (doc as { channels: unknown[] }).channels : null
  if (list === null) throw new FeedParseError('expected an object with "channels" or an array')
  return accept(list.map((e) => {
    const o = (e !== null && typeof e === 'object' ? e : {}) as Record<string, unknown>
    return { id: o.id, url: o.url, name: o.name, logo: o.logo, description: o.description }
  }), prefix, 'json')
}

const ATTR = /([A-Za-z][\w-]*)="([^"]*)"/g

function attrs (s: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const m of s.matchAll(ATTR)) out[m[1]!.toLowerCase()] = m[2]!
  return out
}

const validFeedId = (prefix: string, feedId: string): boolean => {
  try { sourceStreamId(prefix, feedId); return true } catch { return false }
}

/** A stable id from a display name: ASCII letters and digits joined by '-'. */
const nameSlug = (name: string) => name.normalize('NFKD').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40)

function parseM3u (text: string, prefix: string): ParsedFeed {
  const lines = text.split(/\r?\n/).map((l) => l.trim())
  const header = lines[0] ?? ''
  if (!header.startsWith('#EXTM3U')) throw new FeedParseError('garbled M3U: no #EXTM3U header')
  const head = attrs(header)
  const guide = (head['url-tvg'] ?? head['x-tvg-url'] ?? '').split(',').map((s) => s.trim()).find(isHttps)
  const raw: RawEntry[] = []
  let info: { attrs: Record<string, string>; name: string } | null = null
  let extinf = 0
  for (const line of lines.slice(1)) {
    if (line === '') continue
    if (line.startsWith('#EXTINF')) {
      if (info !== null) raw.push({ id: nameSlug(info.name) || null, url: null, name: info.name, logo: null, description: null }) // an #EXTINF without a URL
      const comma = line.lastIndexOf(',')
      const a = attrs(comma > 0 ? line.slice(0, comma) : line)
      info = { attrs: a, name: comma > 0 ? line.slice(comma + 1).trim() : '' }
      extinf++
      continue
    }
    if (line.startsWith('#')) continue
    if (info === null) continue
    const a = info.attrs
    const name = a['tvg-name'] !== undefined && a['tvg-name'] !== '' ? a['tvg-name'] : info.name
    const tvgId = a['tvg-id'] ?? ''
    // The feed id: tvg-id when it makes a valid stream id, else a slug of the name, else a hash of the URL.
    let id = tvgId !== '' && validFeedId(prefix, tvgId) ? tvgId : ''
    if (id === '') id = nameSlug(name)
    if (id === '') id = toHex(blake2b256(new TextEncoder().encode(line))).slice(0, 16)
    raw.push({ id, url: line, name, logo: a['tvg-logo'], description: null, ...(guide !== undefined && tvgId !== '' ? { epgUrl: guide, epgId: tvgId.slice(0, EPG_ID_MAX) } : {}) })
    info = null
  }
  if (info !== null) raw.push({ id: nameSlug(info.name) || null, url: null, name: info.name, logo: null, description: null })
  if (extinf === 0 && lines.slice(1).some((l) => l !== '' && !l.startsWith('#'))) throw new FeedParseError('garbled M3U: entries without #EXTINF')
  return accept(raw, prefix, 'm3u')
}

/** Parses a feed body by its content: M3U when it starts with #EXTM3U, else JSON. */
export function parseFeed (text: string, prefix: string): ParsedFeed {
  const body = text.replace(/^\uFEFF/, '').trimStart()
  return body.startsWith('#EXTM3U') ? parseM3u(body, prefix) : parseJson(body, prefix)
}

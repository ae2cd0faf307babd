import { presentCategories, type CatMetaRecord, type Presentation, type Rail, type StreamRecord } from '@arus/catalog'
import type { DisplayItem } from './index.js'

/**
 * The display list (spec 3 "Display list item"): metadata of each entitled catalog record plus
 * art as a local URL (P2P art, `assets/...`) or the record's absolute https URL. Never a key:
 * not the stream key, and not feedKey/blobsKey either. viewerCount is derived and not durable
 * (spec 1), so always null here. Sorted by curated order (the zap ring order), unordered last.
 */
export function buildDisplayList (records: ReadonlyMap<string, StreamRecord>, entitled: ReadonlySet<string>, assetUrl: (path: string) => string, presentation?: Presentation): DisplayItem[] {
  const items: DisplayItem[] = []
  for (const [id, r] of records) {
    if (!entitled.has(id)) continue
    items.push(toDisplayItem(id, r, assetUrl, presentation))
  }
  return items.sort(compareItems)
}

/** The category presentation over every replicated record's labels (so a rail keeps its label whoever is entitled). */
export function presentation (records: ReadonlyMap<string, StreamRecord>, metas: ReadonlyMap<string, CatMetaRecord>): Presentation {
  return presentCategories(metas.values(), [...records.values()].map((r) => r.category))
}

/** The visible rails of the entitled records, in the operator's order. */
export function visibleRails (records: ReadonlyMap<string, StreamRecord>, entitled: ReadonlySet<string>, p: Presentation): Rail[] {
  return p.rails([...records].filter(([id]) => entitled.has(id)).map(([, r]) => r.category))
}

export function toDisplayItem (id: string, r: StreamRecord, assetUrl: (path: string) => string, presentation?: Presentation): DisplayItem {
  const art = (ref: string): string => (ref === '' ? '' : assetUrl(ref))
  return {
    id,
    title: r.title,
    description: r.description,
    category: presentation === undefined ? [...r.category] : presentation.labels(r.category),
    type: r.type,
    status: r.status,
    isLive: r.type === 'live' ? r.isLive : null,
    durationSec: r.type === 'vod' ? r.durationSec : null,
    order: r.order,
    featured: r.featured,
    restricted: r.restricted === true,
    poster: art(r.poster),
    backdrop: art(r.backdrop),
    logo: art(r.logo),
    redirect: r.redirect,
    available: r.redirect || r.feedKey !== null,
    epgUrl: r.epgUrl ?? null,
    epgId: r.epgId ?? null,
    viewerCount: null
  }
}

/** Curated order first (0..9999), unordered after, then title, then id. */
export function compareItems (a: { order: number | null; title: string; id: string }, b: { order: number | null; title: string; id: string }): number {
  const oa = a.order ?? Number.POSITIVE_INFINITY
  const ob = b.order ?? Number.POSITIVE_INFINITY
  if (oa !== ob) return oa < ob ? -1 : 1
  if (a.title !== b.title) return a.title < b.title ? -1 : 1
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/** Stable equality of two display lists (to re-emit 'streams' only on a visible change). */
export function sameList (a: readonly DisplayItem[], b: readonly DisplayItem[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

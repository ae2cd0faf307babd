import { slugify } from './schema/ids.js'
import type { CatMetaRecord } from './schema/meta.js'

/**
 * Category presentation (spec 1 "Other replicated and private data": catmeta/ records rename,
 * merge, order and hide rails; membership stays on the stream records). One implementation
 * for the panel's category views and the SDK's rails.
 */

/** The rail a category finally shows on, following merges; null when a merge chain loops. */
export function railOf (slug: string, metas: ReadonlyMap<string, CatMetaRecord>): string | null {
  const seen = new Set<string>()
  let cur = slug
  for (;;) {
    if (seen.has(cur)) return null
    seen.add(cur)
    const next = metas.get(cur)?.mergedInto
    if (next === undefined) return cur
    cur = next
  }
}

/** One visible rail: its slug, the label shown, its curated order (null: unordered). */
export interface Rail { slug: string; label: string; order: number | null }

/** Presentation of a set of records' category labels under the catmeta records. */
export interface Presentation {
  /** A record's labels as shown: renamed, merged into their rail, hidden rails dropped, no duplicates. */
  labels(category: readonly string[]): string[]
  /** The visible rails the given records appear on, in curated order (unordered last, then by label). */
  rails(categories: Iterable<readonly string[]>): Rail[]
}

/**
 * Builds the presentation from the catmeta records and every label spelling seen on records
 * (`spellings`: the first spelling of a slug is its label when it has no rename).
 */
export function presentCategories (metas: Iterable<CatMetaRecord>, spellings: Iterable<readonly string[]>): Presentation {
  const bySlug = new Map<string, CatMetaRecord>()
  for (const m of metas) bySlug.set(m.slug, m)
  const first = new Map<string, string>()
  for (const labels of spellings) for (const l of labels) { const s = slugify(l); if (!first.has(s)) first.set(s, l) }
  const railFor = (label: string): Rail | null => {
    const slug = railOf(slugify(label), bySlug) ?? slugify(label)
    const m = bySlug.get(slug)
    if (m?.hidden === true) return null
    return { slug, label: m?.label ?? first.get(slug) ?? label, order: m?.order ?? null }
  }
  return {
    labels (category) {
      const out: string[] = []
      for (const l of category) { const r = railFor(l); if (r !== null && !out.includes(r.label)) out.push(r.label) }
      return out
    },
    rails (categories) {
      const rails = new Map<string, Rail>()
      for (const labels of categories) for (const l of labels) { const r = railFor(l); if (r !== null) rails.set(r.slug, r) }
      return [...rails.values()].sort((a, b) => (a.order ?? 10_000) - (b.order ?? 10_000) || a.label.localeCompare(b.label) || a.slug.localeCompare(b.slug))
    }
  }
}

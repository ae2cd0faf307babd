import { StreamId } from '@arus/catalog'

/**
 * What a repeater mirrors (`CHANNELS`): `all`, `none`, a comma-separated list of stream ids,
 * or `category:<name>[,<name>…]` (a record is selected when one of its categories matches,
 * compared without case). Live channels and VOD titles alike; a record without a feed
 * (a redirect, a source with no broadcaster yet) is never mirrored.
 */
export type Selection =
  | { kind: 'all' }
  | { kind: 'none' }
  | { kind: 'ids'; ids: ReadonlySet<string> }
  | { kind: 'category'; names: ReadonlySet<string> }


/** Parses CHANNELS; returns the reason as a string when the value is not one of the forms. */
export function parseSelection (raw: string): Selection | string {
  const v = raw.trim()
  if (v === '' || v.toLowerCase() === 'all') return { kind: 'all' }
  if (v.toLowerCase() === 'none') return { kind: 'none' }
  if (v.toLowerCase().startsWith('category:')) {
    const names = v.slice('category:'.length).split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '')
    if (names.length === 0) return 'category: needs at least one category name'
    return { kind: 'category', names: new Set(names) }
  }
  const ids = v.split(',').map((s) => s.trim()).filter((s) => s !== '')
  const bad = ids.find((id) => !StreamId.safeParse(id).success)
  if (bad !== undefined) return `"${bad.slice(0, 70)}" is not a stream id (expected all, none, id[,id…] or category:<name>[,<name>…])`
  return { kind: 'ids', ids: new Set(ids) }
}

/** True when the selection takes the record with this id and these categories. */
export function selects (sel: Selection, id: string, categories: readonly string[]): boolean {
  switch (sel.kind) {
    case 'all': return true
    case 'none': return false
    case 'ids': return sel.ids.has(id)
    case 'category': return categories.some((c) => sel.names.has(c.toLowerCase()))
  }
}

/** The selection as CHANNELS would spell it (for status and logs). */
export function describeSelection (sel: Selection): string {
  switch (sel.kind) {
    case 'all': return 'all'
    case 'none': return 'none'
    case 'ids': return [...sel.ids].join(',')
    case 'category': return `category:${[...sel.names].join(',')}`
  }
}

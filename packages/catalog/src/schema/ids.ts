import b4a from 'b4a'
import { z } from 'zod'
import { SLUG_MAX, STREAM_ID_MAX, USERNAME_MAX } from '../constants.js'

/**
 * Letters, digits and `_ . -`, 1-64 characters (spec 1 "Catalog record" rule 7); never
 * `__proto__`, which no JSON map can hold as a key (it would be lost at the next read).
 */
export const STREAM_ID_PATTERN = /^(?!__proto__$)[A-Za-z0-9_.-]{1,64}$/
/** Letters, digits and `_ . - @`, 1-64 characters; case-sensitive; never `__proto__`. */
export const USERNAME_PATTERN = /^(?!__proto__$)[A-Za-z0-9_.@-]{1,64}$/
/** Lowercase Unicode letters (with their marks) and digits in runs joined by single '-'. */
const SLUG_PATTERN = /^[\p{L}\p{M}\p{N}]+(?:-[\p{L}\p{M}\p{N}]+)*$/u
/** Names under `meta/`: lowercase letters, digits, '-' (1-32). */
export const META_NAME_PATTERN = /^[a-z0-9-]{1,32}$/

export function isSlug (s: string): boolean {
  return typeof s === 'string' && s.length <= SLUG_MAX && SLUG_PATTERN.test(s) && s === s.toLowerCase()
}

/**
 * A stream id: ASCII letters, digits and `_ . -`, 1-64 characters. Manual ids follow the
 * same rule as ids imported from a source.
 */
export const StreamId = z.string().regex(STREAM_ID_PATTERN, `must be 1-${STREAM_ID_MAX} of letters, digits, _ . -`)

/**
 * A username: ASCII letters, digits and `_ . - @`, 1-64 characters. Case-sensitive:
 * `Ana` and `ana` are two accounts.
 */
export const Username = z.string().regex(USERNAME_PATTERN, `must be 1-${USERNAME_MAX} of letters, digits, _ . - @`)

/** A category slug as produced by {@link slugify}. */
export const Slug = z.string().refine(isSlug, `must be a slug (lowercase letters/digits in runs joined by '-', at most ${SLUG_MAX} characters)`)

/**
 * The slug of a category label: Unicode-normalized (NFKC), lowercased, every run of
 * characters other than letters (with their combining marks) and digits turned into one
 * '-', trimmed, cut at 64 characters. Accents are kept (`Café` → `café`), so any script
 * works. A label with no letter or digit at all maps to
 * `c` + hex of its UTF-8 bytes (cut to fit), so every label has a slug.
 */
export function slugify (category: string): string {
  const base = category.normalize('NFKC').toLowerCase()
  let slug = base.replace(/[^\p{L}\p{M}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '')
  slug = cut(slug)
  if (slug !== '' && isSlug(slug)) return slug
  const hex = b4a.toString(b4a.from(category, 'utf8'), 'hex')
  return ('c' + hex).slice(0, SLUG_MAX)
}

function cut (slug: string): string {
  // Cut on code points so no surrogate pair is split, then drop a trailing '-'.
  const chars = Array.from(slug)
  let out = ''
  for (const ch of chars) {
    if (out.length + ch.length > SLUG_MAX) break
    out += ch
  }
  return out.replace(/-+$/, '')
}

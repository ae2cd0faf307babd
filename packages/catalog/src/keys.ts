import { CatalogError } from './errors.js'
import { META_NAME_PATTERN, STREAM_ID_PATTERN, USERNAME_PATTERN, isSlug } from './schema/ids.js'
import { GROUP_ID_PATTERN } from './schema/group.js'

/**
 * The top-level key prefixes of the catalog bee. Each ends in '/', so a range scan of one
 * prefix ({@link prefixRange}) never reaches into another.
 * Spec: /work/shared/ARCHITECTURE.md "Panel identity and catalog".
 */
export const PREFIXES = {
  stream: 'catalog/',
  user: 'user/',
  catMeta: 'catmeta/',
  svcMeta: 'svcmeta/',
  meta: 'meta/',
  group: 'grp/'
} as const

/** One of the catalog's top-level prefixes. */
export type CatalogPrefix = (typeof PREFIXES)[keyof typeof PREFIXES]

/** The one key under `svcmeta/`: the external VOD provider settings. */
export const VOD_CONFIG_KEY = 'svcmeta/vod'
/** The panel's own metadata record. */
export const PANEL_META_KEY = 'meta/panel'

/** Key builders; each validates its argument and throws CATALOG_INVALID_KEY when malformed. */
export const keys = {
  stream (id: string): `catalog/${string}` {
    if (typeof id !== 'string' || !STREAM_ID_PATTERN.test(id)) throw CatalogError.invalidKey('catalog/' + id, 'streamId must be 1-64 of letters, digits, _ . -')
    return `catalog/${id}`
  },
  user (username: string): `user/${string}` {
    if (typeof username !== 'string' || !USERNAME_PATTERN.test(username)) throw CatalogError.invalidKey('user/' + username, 'username must be 1-64 of letters, digits, _ . - @')
    return `user/${username}`
  },
  catMeta (slug: string): `catmeta/${string}` {
    if (typeof slug !== 'string' || !isSlug(slug)) throw CatalogError.invalidKey('catmeta/' + slug, 'slug must be a slugify() result')
    return `catmeta/${slug}`
  },
  vodConfig (): 'svcmeta/vod' {
    return VOD_CONFIG_KEY
  },
  group (id: string): `grp/${string}` {
    if (typeof id !== 'string' || !GROUP_ID_PATTERN.test(id)) throw CatalogError.invalidKey('grp/' + id, "group id must be 'auto' or 'p.<package name>'")
    return `grp/${id}`
  },
  meta (name: string): `meta/${string}` {
    if (typeof name !== 'string' || !META_NAME_PATTERN.test(name)) throw CatalogError.invalidKey('meta/' + name, 'meta name must be 1-32 of a-z, 0-9, -')
    return `meta/${name}`
  }
} as const

/** A key split into its prefix and the part after it. */
export interface ParsedKey { prefix: CatalogPrefix; name: string }

/** Splits and validates a full key; throws CATALOG_INVALID_KEY outside the layout. */
export function parseKey (key: string): ParsedKey {
  if (typeof key !== 'string') throw CatalogError.invalidKey(String(key), 'keys are strings')
  for (const prefix of Object.values(PREFIXES)) {
    if (!key.startsWith(prefix)) continue
    const name = key.slice(prefix.length)
    // Re-build through the validating builders so both paths share one rule.
    if (prefix === PREFIXES.stream) keys.stream(name)
    else if (prefix === PREFIXES.user) keys.user(name)
    else if (prefix === PREFIXES.catMeta) keys.catMeta(name)
    else if (prefix === PREFIXES.meta) keys.meta(name)
    else if (prefix === PREFIXES.group) keys.group(name)
    else if (key !== VOD_CONFIG_KEY) throw CatalogError.invalidKey(key, `the only svcmeta key is ${VOD_CONFIG_KEY}`)
    return { prefix, name }
  }
  throw CatalogError.invalidKey(key, `prefix must be one of ${Object.values(PREFIXES).join(', ')}`)
}

/** A key range for hyperbee scans: `{ gte, lt }`. */
export interface KeyRange { gte: string; lt: string }

/**
 * The range holding exactly the keys that start with `prefix`, which must end in '/':
 * `{ gte: prefix, lt: prefix with its last '/' replaced by '0' }` ('0' is the byte after '/').
 */
export function prefixRange (prefix: string): KeyRange {
  if (typeof prefix !== 'string' || prefix.length < 2 || !prefix.endsWith('/')) {
    throw CatalogError.invalidArgument('prefix', `${JSON.stringify(prefix)} must be a non-empty name ending in '/'`)
  }
  return { gte: prefix, lt: prefix.slice(0, -1) + '0' }
}

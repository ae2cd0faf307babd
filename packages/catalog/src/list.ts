import type Hyperbee from 'hyperbee'
import { decodeRecord } from './codec.js'
import type { CatalogRecord } from './codec.js'
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT } from './constants.js'
import { CatalogError } from './errors.js'
import { PREFIXES, prefixRange } from './keys.js'
import { USERNAME_PATTERN } from './schema/ids.js'
import type { UserRecord } from './schema/user.js'

/** One decoded entry of a prefix scan: the part of the key after the prefix, and its record. */
export interface ScanEntry<T> { name: string; record: T }

type Range = { gt?: string; gte?: string; lt?: string; limit?: number }

/**
 * Scans `range` of `bee` and decodes each value with the read-side schemas; entries that
 * fail are skipped and passed to `onInvalid`.
 */
export async function scanRange<T extends CatalogRecord> (
  bee: Hyperbee, prefix: string, range: Range, onInvalid: (key: string) => void, readOpts: Record<string, unknown> = {}
): Promise<Array<ScanEntry<T>>> {
  const entries: Array<ScanEntry<T>> = []
  for await (const entry of bee.createReadStream(range, readOpts)) {
    const key = entry.key as string
    const record = decodeRecord(key, entry.value as Uint8Array)
    if (record === null) onInvalid(key)
    else entries.push({ name: key.slice(prefix.length), record: record as T })
  }
  return entries
}

/** Every record under `prefix` (which ends in '/'). */
export async function scanPrefix<T extends CatalogRecord> (
  bee: Hyperbee, prefix: string, onInvalid: (key: string) => void, readOpts?: Record<string, unknown>
): Promise<Array<ScanEntry<T>>> {
  return scanRange<T>(bee, prefix, prefixRange(prefix), onInvalid, readOpts)
}

/** Options of `listUsers`. */
export interface ListUsersOptions {
  /** Only usernames starting with this (case-sensitive). Default ''. */
  prefix?: string
  /** Start after this username (the `next` of the previous page). */
  after?: string
  /** Page size, 1-1000. Default 100. */
  limit?: number
}

/** One page of users; `next` is the `after` of the following page, or null at the end. */
export interface UserPage { users: Array<{ username: string; record: UserRecord }>; next: string | null }

const USERNAME_PREFIX = /^[A-Za-z0-9_.@-]{0,64}$/

/** One page of `user/` records in key order. */
export async function listUserPage (bee: Hyperbee, opts: ListUsersOptions, onInvalid: (key: string) => void): Promise<UserPage> {
  const prefix = opts.prefix ?? ''
  const limit = opts.limit ?? DEFAULT_LIST_LIMIT
  if (typeof prefix !== 'string' || !USERNAME_PREFIX.test(prefix)) throw CatalogError.invalidArgument('prefix', 'must be up to 64 of letters, digits, _ . - @')
  if (opts.after !== undefined && (typeof opts.after !== 'string' || !USERNAME_PATTERN.test(opts.after))) throw CatalogError.invalidArgument('after', 'must be a username')
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) throw CatalogError.invalidArgument('limit', `must be an integer 1-${MAX_LIST_LIMIT}`)

  const from = PREFIXES.user + prefix
  // Usernames are ASCII, so U+FFFF (EF BF BF in UTF-8) sorts after every key with this prefix.
  const range: Range = { lt: from + '\uffff', limit: limit + 1 }
  const after = opts.after === undefined ? null : PREFIXES.user + opts.after
  if (after !== null && after >= from) range.gt = after
  else range.gte = from

  const users: UserPage['users'] = []
  let lastName = ''
  let seen = 0
  let next: string | null = null
  for await (const entry of bee.createReadStream(range)) {
    const key = entry.key as string
    if (seen === limit) {
      // One more key exists: the page is full and continues after the last key it covered.
      next = lastName
      break
    }
    seen++
    lastName = key.slice(PREFIXES.user.length)
    const record = decodeRecord(key, entry.value as Uint8Array)
    if (record === null) onInvalid(key)
    else users.push({ username: lastName, record: record as UserRecord })
  }
  return { users, next }
}

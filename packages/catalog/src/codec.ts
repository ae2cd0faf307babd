import b4a from 'b4a'
import type { z } from 'zod'
import { canonicalJson } from './canonical.js'
import { MAX_RECORD_BYTES } from './constants.js'
import { CatalogError } from './errors.js'
import { PREFIXES, parseKey } from './keys.js'
import type { CatalogPrefix } from './keys.js'
import {
  CatMetaRecord, CatMetaRecordLoose, PanelMetaRecord, PanelMetaRecordLoose, VodConfigRecord, VodConfigRecordLoose
} from './schema/meta.js'
import { StreamRecord, StreamRecordLoose } from './schema/stream.js'
import { UserRecord, UserRecordLoose } from './schema/user.js'
import { GroupRecord, GroupRecordLoose } from './schema/group.js'

/** Any record the catalog stores. */
export type CatalogRecord = StreamRecord | UserRecord | CatMetaRecord | VodConfigRecord | PanelMetaRecord | GroupRecord

/** The record type stored under a key, picked from the key's prefix. */
export type RecordFor<K extends string> =
  K extends `catalog/${string}` ? StreamRecord
    : K extends `user/${string}` ? UserRecord
      : K extends `catmeta/${string}` ? CatMetaRecord
        : K extends 'svcmeta/vod' ? VodConfigRecord
          : K extends 'meta/panel' ? PanelMetaRecord
            : K extends `grp/${string}` ? GroupRecord
              : CatalogRecord

interface SchemaPair { strict: z.ZodType; loose: z.ZodType }

const BY_PREFIX: Record<Exclude<CatalogPrefix, 'meta/'>, SchemaPair> = {
  [PREFIXES.stream]: { strict: StreamRecord, loose: StreamRecordLoose },
  [PREFIXES.user]: { strict: UserRecord, loose: UserRecordLoose },
  [PREFIXES.catMeta]: { strict: CatMetaRecord, loose: CatMetaRecordLoose },
  [PREFIXES.svcMeta]: { strict: VodConfigRecord, loose: VodConfigRecordLoose },
  [PREFIXES.group]: { strict: GroupRecord, loose: GroupRecordLoose }
}

/** Names under `meta/` that have a schema; any other meta name is refused. */
const META: Record<string, SchemaPair> = {
  panel: { strict: PanelMetaRecord, loose: PanelMetaRecordLoose }
}

/**
 * Read-side parses skip zod's compiled fast path: a replica decodes a few records per edit, and
 * building that path (generated code, one function per object schema, compiled by V8 on first
 * use) costs a cold process more than it ever saves (~2 ms per record kind on a viewer's first
 * login, against a warm parse of the same ~10 µs either way; docs/architecture.md "The first login").
 */
const READ_PARSE = { jitless: true } as const

function schemasFor (key: string): SchemaPair {
  const { prefix, name } = parseKey(key)
  if (prefix !== PREFIXES.meta) return BY_PREFIX[prefix]
  const pair = Object.hasOwn(META, name) ? META[name] : undefined
  if (pair === undefined) throw CatalogError.invalidKey(key, `no record schema for meta/${name} (known: ${Object.keys(META).join(', ')})`)
  return pair
}

function fieldOf (issue: z.core.$ZodIssue): string[] {
  const path = issue.path.map(String).join('.')
  if (issue.code === 'unrecognized_keys') return issue.keys.map((k) => (path === '' ? k : `${path}.${k}`))
  return [path === '' ? '(record)' : path]
}

/** Validates `record` strictly for `key` and returns its canonical bytes. */
export function encodeRecord (key: string, record: unknown): { record: CatalogRecord; bytes: Uint8Array } {
  const { strict } = schemasFor(key)
  const result = strict.safeParse(record)
  if (!result.success) {
    const problems = result.error.issues.flatMap((issue) => fieldOf(issue).map((field) => ({
      field,
      message: issue.code === 'unrecognized_keys' ? 'unknown field (derived values and key material are never stored)' : issue.message
    })))
    throw CatalogError.invalidRecord(key, problems)
  }
  const value = result.data as CatalogRecord
  const { prefix, name } = parseKey(key)
  if (prefix === PREFIXES.catMeta && (value as CatMetaRecord).slug !== name) {
    throw CatalogError.invalidRecord(key, [{ field: 'slug', message: `must equal the key's slug ${JSON.stringify(name)}` }])
  }
  const bytes = b4a.from(canonicalJson(value), 'utf8')
  if (bytes.byteLength > MAX_RECORD_BYTES) throw CatalogError.tooLarge(key, bytes.byteLength, MAX_RECORD_BYTES)
  return { record: value, bytes }
}

/**
 * Parses stored bytes for `key` with the read-side schema (unknown fields dropped).
 * Returns null for anything that is not a valid record of that key: never throws.
 */
export function decodeRecord (key: string, bytes: Uint8Array | null | undefined): CatalogRecord | null {
  if (bytes === null || bytes === undefined || bytes.byteLength > MAX_RECORD_BYTES) return null
  try {
    const { loose } = schemasFor(key)
    const result = loose.safeParse(JSON.parse(b4a.toString(bytes, 'utf8')), READ_PARSE)
    if (!result.success) return null
    const { prefix, name } = parseKey(key)
    if (prefix === PREFIXES.catMeta && (result.data as CatMetaRecord).slug !== name) return null
    return result.data as CatalogRecord
  } catch {
    return null
  }
}

import { z } from 'zod'
import { keyedRecord, ownValue, readJsonFile, withFileLock, writeJsonAtomic } from '@arus/service'
import type { PanelPaths } from './paths.js'

/**
 * Panel-private registries: stream keys, publisher enrollments, packages, grant provenance and grant group keys (admin accounts are the
 * kit's registry, see @arus/service).
 * Each is a small JSON file re-read on every use, so registry-only CLI commands can
 * edit them beside a running panel and the panel sees the change at its next use.
 */

const hex = (bytes: number) => z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`))

export const PublisherEntry = z.object({
  publicKey: hex(32),
  scopes: z.array(z.string().min(1).max(128)).max(256),
  status: z.enum(['active', 'revoked']),
  createdAt: z.number()
})
export type PublisherEntry = z.infer<typeof PublisherEntry>

/** A channel package (spec 1 "Package"); members resolve at reconcile time. */
export const PackageEntry = z.object({
  label: z.string().max(200).nullable(),
  members: z.array(z.string().min(1).max(200)).max(1000),
  default: z.boolean(),
  createdAt: z.number()
})
export type PackageEntry = z.infer<typeof PackageEntry>

/** Where a user's grants come from, besides auto-granting sources: the packages held and the manual grants. */
export const Entitlement = z.object({
  packages: z.array(z.string()),
  manual: z.array(z.string())
})
export type Entitlement = z.infer<typeof Entitlement>

/**
 * A grant group's key (issue 43; docs/architecture.md "Grants and the catalog"): generation
 * `gen` of `grp/<groupId>` is sealed under `key`. `stale` says a holder left since the key was
 * minted (package taken away, user deleted or disabled): the next time the group's record would
 * gain a channel or a changed channel key, the group rotates to gen + 1 under a fresh key first.
 * An entry outlives its group (a deleted package) as a stale tombstone, so a generation is never
 * reused.
 */
export const GroupKeyEntry = z.object({
  gen: z.int().min(1),
  key: hex(32),
  stale: z.boolean()
})
export type GroupKeyEntry = z.infer<typeof GroupKeyEntry>

/** A remote source (spec 1 "Remote source"). The url may carry a provider credential: never logged in full. */
export const SourceEntry = z.object({
  url: z.string(),
  category: z.string(),
  prefix: z.string(),
  autoGrant: z.boolean(),
  enabled: z.boolean(),
  intervalMs: z.number().int(),
  exclude: z.array(z.object({ id: z.string(), title: z.string() })),
  createdAt: z.number()
})
export type SourceEntry = z.infer<typeof SourceEntry>

/** What the last sync of a source left: the ETag to send, the report or the error. */
export const SourceState = z.object({
  etag: z.string().nullable(),
  /** Hash of the source fields the ETag was fetched under; the ETag is only sent while they match (absent: never). */
  etagInputs: z.string().optional(),
  lastSync: z.object({ at: z.number(), report: z.record(z.string(), z.unknown()) }).nullable(),
  lastError: z.object({ at: z.number(), message: z.string() }).nullable(),
  /** Failed syncs since the last good one: the scheduler's backoff (absent: 0, or 1 with a lastError). */
  failures: z.int().min(0).optional()
})
export type SourceState = z.infer<typeof SourceState>

/**
 * A source removed by the CLI beside the running panel (registry-only, spec 1 Admin CLI): the
 * panel, which holds the store, purges its channels or — `keepChannels` — detaches them as
 * manual channels, then drops the entry. Written before the source entry goes, so the panel
 * never sees the source gone without it.
 */
export const SourceRemoval = z.object({ at: z.number(), keepChannels: z.boolean() })
export type SourceRemoval = z.infer<typeof SourceRemoval>

const StreamKeysFile = z.object({ v: z.literal(1), keys: z.record(z.string(), hex(32)) })
const PackagesFile = z.object({ v: z.literal(1), packages: z.record(z.string(), PackageEntry) })
const SourcesFile = z.object({ v: z.literal(1), sources: z.record(z.string(), SourceEntry) })
const SourceStateFile = z.object({ v: z.literal(1), sources: z.record(z.string(), SourceState) })
const SourceRemovalsFile = z.object({ v: z.literal(1), sources: z.record(z.string(), SourceRemoval) })
const EntitlementsFile = z.object({ v: z.literal(1), users: z.record(z.string(), Entitlement) })
const GroupKeysFile = z.object({ v: z.literal(1), groups: z.record(z.string(), GroupKeyEntry) })
const PublishersFile = z.object({ v: z.literal(1), publishers: z.record(z.string(), PublisherEntry) })

/**
 * A map persisted as one private JSON file; `update` is read-modify-write under a lock. Its
 * keys come from input (names, stream ids, usernames): the maps have no prototype, so a
 * `constructor` or `__proto__` finds nothing and stores plain data.
 */
export interface Registry<T> {
  all(): Promise<Record<string, T>>
  get(name: string): Promise<T | null>
  update<R>(fn: (map: Record<string, T>) => R): Promise<R>
}

function createRegistry<T, F extends { v: 1 }> (path: string, schema: z.ZodType<F>, field: keyof F & string): Registry<T> {
  const read = async (): Promise<Record<string, T>> => {
    const file = await readJsonFile(path, schema, { missing: 'null' })
    return keyedRecord(file ? file[field] as Record<string, T> : {})
  }
  return {
    all: read,
    async get (name) {
      const map = await read()
      return ownValue(map, name) ?? null
    },
    update (fn) {
      return withFileLock(path, async () => {
        const map = await read()
        const before = JSON.stringify(map)
        const result = fn(map)
        if (JSON.stringify(map) !== before) await writeJsonAtomic(path, { v: 1, [field]: map }, { mode: 0o600 })
        return result
      })
    }
  }
}

export interface PanelRegistries {
  streamKeys: Registry<string>
  publishers: Registry<PublisherEntry>
  packages: Registry<PackageEntry>
  /** Users absent here hold no package and count every grant they have as manual (records from before packages). */
  entitlements: Registry<Entitlement>
  /** Grant group keys: written by the store holder only (reconciles), never beside it. */
  groupKeys: Registry<GroupKeyEntry>
  sources: Registry<SourceEntry>
  /** Written by syncs (the store holder); safe to read anywhere. */
  sourceState: Registry<SourceState>
  /** Removals made beside the running panel, still to apply to the catalog. */
  sourceRemovals: Registry<SourceRemoval>
}

export function openRegistries (paths: PanelPaths): PanelRegistries {
  return {
    streamKeys: createRegistry<string, z.infer<typeof StreamKeysFile>>(paths.streamKeys, StreamKeysFile, 'keys'),
    publishers: createRegistry<PublisherEntry, z.infer<typeof PublishersFile>>(paths.publishers, PublishersFile, 'publishers'),
    packages: createRegistry<PackageEntry, z.infer<typeof PackagesFile>>(paths.packages, PackagesFile, 'packages'),
    entitlements: createRegistry<Entitlement, z.infer<typeof EntitlementsFile>>(paths.entitlements, EntitlementsFile, 'users'),
    groupKeys: createRegistry<GroupKeyEntry, z.infer<typeof GroupKeysFile>>(paths.groupKeys, GroupKeysFile, 'groups'),
    sources: createRegistry<SourceEntry, z.infer<typeof SourcesFile>>(paths.sources, SourcesFile, 'sources'),
    sourceState: createRegistry<SourceState, z.infer<typeof SourceStateFile>>(paths.sourceState, SourceStateFile, 'sources'),
    sourceRemovals: createRegistry<SourceRemoval, z.infer<typeof SourceRemovalsFile>>(paths.sourceRemovals, SourceRemovalsFile, 'sources')
  }
}

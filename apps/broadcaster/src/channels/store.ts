import { z } from 'zod'
import { keyedRecord, ownValue, readJsonFile, withFileLock, writeJsonAtomic } from '@arus/service'
import { Channel } from './model.js'

/**
 * Persistence of channels (channels.json) and their feed identities
 * (private/feed-keys.json): small JSON files written atomically (temp, fsync, rename)
 * at 0600, read once at boot and rewritten on every change.
 */

/** channels.json format version (spec 2 "Broadcaster channel"). */
export const CHANNELS_FILE_VERSION = 1
/** private/feed-keys.json format version (spec 2 "Broadcaster facts": persisted feed identity). */
export const FEED_KEYS_FILE_VERSION = 1

const hex32 = z.string().regex(/^[0-9a-f]{64}$/)

/** A retired feed generation: still seeded until `retiredAt + grace`, then its cores are purged. */
export const RetiredGeneration = z.strictObject({ namespace: z.string(), feedKey: hex32, retiredAt: z.number() })
export type RetiredGeneration = z.infer<typeof RetiredGeneration>

/**
 * A channel's feed identity. `key` is the stream content key (never changes, so grants keep
 * working); each generation is one Hyperdrive in its own Corestore namespace.
 */
export const FeedIdentity = z.strictObject({
  key: hex32,
  generation: z.number().int().min(0),
  /** Corestore namespace of the current disk generation ('' = the legacy root store). */
  namespace: z.string().nullable(),
  feedKey: hex32.nullable(),
  /** inputFingerprint of the input the current generation was minted for. */
  fingerprint: z.string().nullable(),
  retired: z.array(RetiredGeneration)
})
export type FeedIdentity = z.infer<typeof FeedIdentity>

const ChannelsFile = z.object({ v: z.literal(CHANNELS_FILE_VERSION), channels: z.record(z.string(), Channel) })
const FeedKeysFile = z.object({ v: z.literal(FEED_KEYS_FILE_VERSION), channels: z.record(z.string(), FeedIdentity) })

/** A map persisted as one JSON file; every mutation is serialized and written at once. Keyed by channel ids from input: no prototype. */
export interface JsonMap<T> {
  get(id: string): T | undefined
  all(): Record<string, T>
  set(id: string, value: T): Promise<void>
  delete(id: string): Promise<void>
}

async function openMap<T> (path: string, schema: z.ZodType<{ v: number; channels: Record<string, T> }>, version: number): Promise<JsonMap<T>> {
  const file = await readJsonFile(path, schema, { missing: 'null' })
  const map = keyedRecord<T>(file?.channels)
  const persist = () => withFileLock(path, () => writeJsonAtomic(path, { v: version, channels: map }, { mode: 0o600 }))
  return {
    get: (id) => ownValue(map, id),
    all: () => keyedRecord(map),
    async set (id, value) { map[id] = value; await persist() },
    async delete (id) { delete map[id]; await persist() }
  }
}

export interface ChannelStores {
  channels: JsonMap<Channel>
  identities: JsonMap<FeedIdentity>
}

export async function openChannelStores (paths: { channels: string; feedKeys: string }): Promise<ChannelStores> {
  return {
    channels: await openMap<Channel>(paths.channels, ChannelsFile, CHANNELS_FILE_VERSION),
    identities: await openMap<FeedIdentity>(paths.feedKeys, FeedKeysFile, FEED_KEYS_FILE_VERSION)
  }
}

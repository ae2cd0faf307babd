import { RECORD_VERSION, type GroupRecord } from '@arus/catalog'
import { fromHex, openGroupChannelKey, randomBytes, sealGroupChannelKey, toHex } from '@arus/crypto'
import type { GroupKeyEntry } from '../registries.js'

/**
 * The group side of a reconcile (issue 43; docs/architecture.md "Grants and the catalog"),
 * pure: given what a group's record must hold, its key entry and its current record, the
 * record to store and whether the group rotated. Entries whose generation and channel key are
 * unchanged stay byte-identical (sealing is randomized, so a re-seal would rewrite them); an
 * entry counts as unchanged only when it opens, under the group key, to the channel's key.
 */

/** A fresh group key entry of generation `gen`. */
export function mintGroupKey (gen: number): GroupKeyEntry {
  return { gen, key: toHex(randomBytes(32)), stale: false }
}

/** Whether `record` holds `streamId` sealed under `entry`'s key and generation, opening to `keyHex`. */
export function holdsChannel (groupId: string, entry: GroupKeyEntry, record: GroupRecord | null, streamId: string, keyHex: string): boolean {
  if (record === null || record.gen !== entry.gen || !Object.hasOwn(record.keys, streamId)) return false
  try {
    return toHex(openGroupChannelKey(fromHex(entry.key, 32), groupId, entry.gen, streamId, record.keys[streamId]!)) === keyHex
  } catch {
    return false
  }
}

/** What {@link planGroup} decided for one group. */
export interface GroupPlan {
  /** The key entry after the plan (a new or rotated one, or the one given). */
  entry: GroupKeyEntry
  /** The record to store (compare-before-write makes an unchanged one free). */
  record: GroupRecord
  /** A holder had left and the record gained a channel or a changed key: a new generation under a fresh key. */
  rotated: boolean
  /** The generation changed (or the record's was another): every holder's sealed group key must follow. */
  regenerated: boolean
}

/**
 * Plans `grp/<groupId>` to hold exactly `wanted` (stream id → key hex). A group without a key
 * entry gets one (one generation past a record left without its entry, so no generation is
 * reused). A stale group rotates before it would gain a channel or a changed channel key, so a
 * leaver's old group key opens nothing added after it left; dropping channels never rotates.
 */
export function planGroup (groupId: string, wanted: ReadonlyMap<string, string>, entry: GroupKeyEntry | undefined, record: GroupRecord | null): GroupPlan {
  let next = entry ?? mintGroupKey((record?.gen ?? 0) + 1)
  if (record !== null && record.gen > next.gen) next = mintGroupKey(record.gen + 1)
  let rotated = false
  if (next.stale && [...wanted].some(([id, key]) => !holdsChannel(groupId, next, record, id, key))) {
    next = mintGroupKey(next.gen + 1)
    rotated = true
  }
  const groupKey = fromHex(next.key, 32)
  const keys: Record<string, string> = {}
  for (const [id, key] of [...wanted].sort(([a], [b]) => (a < b ? -1 : 1))) {
    keys[id] = holdsChannel(groupId, next, record, id, key) ? record!.keys[id]! : sealGroupChannelKey(groupKey, groupId, next.gen, id, fromHex(key, 32))
  }
  const regenerated = (entry !== undefined && entry.gen !== next.gen) || (record !== null && record.gen !== next.gen)
  return { entry: next, record: { v: RECORD_VERSION, gen: next.gen, keys }, rotated, regenerated }
}

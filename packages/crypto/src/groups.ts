import { assertBytes, fromHex } from './bytes.js'
import { STREAM_KEY_BYTES, openGrant } from './grants.js'
import { deriveSubkey } from './primitives.js'
import { openSecret, sealSecret } from './seal.js'
import { CryptoError } from './errors.js'

// Grant groups (issue 43; docs/architecture.md "Grants and the catalog"):
//   user.groups[groupId] = { gen, key: sealGrant(groupKey, user.pub) }
//   grp/<groupId>.keys[streamId] = hex(secretbox(streamKey) under a subkey of groupKey bound to
//   the group, its generation and the stream id)
// so one record per package carries its channels' keys, and a holder's record carries one
// sealed key per package. The binding keeps an entry from opening under another stream id,
// group or generation.

/** Length of a group key. */
export const GROUP_KEY_BYTES = 32

function entryKey (groupKey: Uint8Array, groupId: string, gen: number, streamId: string): Uint8Array {
  assertBytes('groupKey', groupKey, GROUP_KEY_BYTES)
  if (!Number.isInteger(gen) || gen < 1) throw CryptoError.badInput('gen', 'must be an integer >= 1')
  return deriveSubkey(groupKey, `arus-group-channel:${groupId}:${gen}:${streamId}`)
}

/** Seals a stream's 32-byte content key for `grp/<groupId>` generation `gen`; returns hex (72 bytes). */
export function sealGroupChannelKey (groupKey: Uint8Array, groupId: string, gen: number, streamId: string, streamKey: Uint8Array): string {
  assertBytes('streamKey', streamKey, STREAM_KEY_BYTES)
  return sealSecret(entryKey(groupKey, groupId, gen, streamId), streamKey)
}

/** Opens a {@link sealGroupChannelKey} entry; throws `CRYPTO_OPEN_FAILED` when it does not open. */
export function openGroupChannelKey (groupKey: Uint8Array, groupId: string, gen: number, streamId: string, sealedHex: string): Uint8Array {
  const key = openSecret(entryKey(groupKey, groupId, gen, streamId), sealedHex)
  if (key.length !== STREAM_KEY_BYTES) throw CryptoError.openFailed()
  return key
}

/** What {@link openGrants} reads of a user record (`@arus/catalog` UserRecord). */
export interface SealedGrantsOf {
  pub: string
  wrapped: Record<string, string>
  groups?: Record<string, { gen: number; key: string }> | undefined
}
/** What it reads of a grant group record (`grp/<groupId>`). */
export interface GroupKeysOf { gen: number; keys: Record<string, string> }

/**
 * Every stream key a user holds: its own `wrapped` grants, then each held group's channel keys
 * (`groups[id]` is the group key of a generation; `records[id]` the group record). A grant that
 * does not open (sealed to an older key pair) and a group whose record is missing or of another
 * generation (a rotation the replica has not caught up with) are skipped, never thrown.
 */
export function openGrants (user: SealedGrantsOf, records: Readonly<Record<string, GroupKeysOf | null | undefined>>, userSecret: Uint8Array): Map<string, Uint8Array> {
  const keys = new Map<string, Uint8Array>()
  const pub = fromHex(user.pub, 32)
  for (const [id, sealed] of Object.entries(user.wrapped)) {
    try { keys.set(id, openGrant(sealed, pub, userSecret)) } catch { /* sealed to an older key pair */ }
  }
  for (const [groupId, held] of Object.entries(user.groups ?? {})) {
    const record = records[groupId]
    if (record === null || record === undefined || record.gen !== held.gen) continue
    let groupKey: Uint8Array
    try { groupKey = openGrant(held.key, pub, userSecret) } catch { continue }
    for (const [streamId, sealed] of Object.entries(record.keys)) {
      if (keys.has(streamId)) continue
      try { keys.set(streamId, openGroupChannelKey(groupKey, groupId, held.gen, streamId, sealed)) } catch { /* not for this key */ }
    }
  }
  return keys
}

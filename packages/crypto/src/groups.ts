import { assertBytes } from './bytes.js'
import { STREAM_KEY_BYTES } from './grants.js'
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

import { z } from 'zod'
import { RECORD_VERSION } from '../constants.js'
import { hexBytes } from './common.js'
import { StreamId } from './ids.js'

/**
 * A grant group (`grp/<groupId>`, issue 43; docs/architecture.md "Grants and the catalog"): the
 * content keys of the channels a package (or every auto-granting source) resolves to, each
 * sealed under the group's key of generation `gen`. The group key itself reaches each holder
 * sealed to the holder's `pub`, in `user.groups[groupId]`. Adding a channel to a package
 * rewrites this one record, not every holder's.
 *
 * `keys[streamId]` is a secretbox (nonce ‖ ciphertext of the 32-byte content key, 72 bytes)
 * under a subkey of the group key bound to the stream id (@arus/crypto `sealGroupChannelKey`).
 */
export const GROUP_ID_PATTERN = /^(?!__proto__$)(auto|p\.[A-Za-z0-9_.-]{1,64})$/
export const GroupId = z.string().regex(GROUP_ID_PATTERN, "must be 'auto' or 'p.<package name>'")

/** nonce (24) + content key (32) + MAC (16). */
export const GROUP_CHANNEL_KEY_BYTES = 72

function groupShape () {
  return {
    v: z.literal(RECORD_VERSION),
    gen: z.int().min(1),
    keys: z.record(StreamId, hexBytes(GROUP_CHANNEL_KEY_BYTES))
  }
}

export const GroupRecord = z.strictObject(groupShape())
export type GroupRecord = z.infer<typeof GroupRecord>
/** Read-side variant: unknown fields dropped instead of refused. */
export const GroupRecordLoose = z.object(groupShape())

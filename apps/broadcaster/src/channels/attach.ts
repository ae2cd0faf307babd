import { z } from 'zod'
import { parseInput } from '@arus/service'
import { BroadcasterError } from '../errors.js'
import type { ChannelStores, FeedIdentity } from './store.js'

/**
 * Attaching a channel to a stream created in the panel (spec 2 "Broadcaster facts": the
 * broadcaster must use that stream's existing key, or every grant stops working). The
 * channel's content key becomes the panel's stream key. The channel id is the stream id (a
 * register names the stream by it). Allowed on a stopped channel that has not yet published a
 * feed: a generation already published under the channel's own key cannot change key. One
 * operation for the control API (the running daemon, through the manager) and the
 * `attach-stream` command (the files, daemon stopped).
 */

/** The body of POST /api/channels/:id/attach and the input of `attach-stream`. */
export const AttachStreamInput = z.strictObject({
  key: z.string().regex(/^[0-9a-fA-F]{64}$/, 'expected the 64 hex characters of the stream key')
    .transform((k) => k.toLowerCase())
    .describe('The panel stream\'s content key (hex), as `arus-panel add-stream` printed it')
})
export type AttachStreamInput = z.input<typeof AttachStreamInput>

/** `changed` is false when the channel already had this key (the call changed nothing). */
export const AttachStreamReply = z.object({ id: z.string(), changed: z.boolean() })
export type AttachStreamReply = z.infer<typeof AttachStreamReply>

export interface AttachComponents {
  stores: ChannelStores
  /** True while the channel's pipeline runs (always false for a one-shot command). */
  running(id: string): boolean
}

/** True once a feed generation exists under the identity's key (disk or ram, current or retired). */
function hasFeed (idn: FeedIdentity): boolean {
  return idn.feedKey !== null || idn.namespace !== null || idn.generation > 0 || idn.retired.length > 0
}

/** Sets channel `id`'s content key to the panel stream's key (written atomically to private/feed-keys.json). */
export async function attachStream (c: AttachComponents, id: string, input: unknown): Promise<AttachStreamReply> {
  const { key } = parseInput(AttachStreamInput, input)
  if (c.stores.channels.get(id) === undefined) throw BroadcasterError.notFound(`channel "${id}"`)
  if (c.running(id)) throw BroadcasterError.running(id)
  const current = c.stores.identities.get(id)
  if (current?.key === key) return { id, changed: false }
  if (current !== undefined && hasFeed(current)) throw BroadcasterError.feedExists(id)
  await c.stores.identities.set(id, { key, generation: 0, namespace: null, feedKey: null, fingerprint: null, retired: [] })
  return { id, changed: true }
}

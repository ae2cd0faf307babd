import type { StreamRecord } from '@arus/catalog'
import { SdkError } from './errors.js'

export type ResolveDecision =
  | { kind: 'cdn'; url: string }
  | { kind: 'p2p'; type: 'live'; feedKey: string }
  | { kind: 'p2p'; type: 'vod'; feedKey: string; durationSec: number | null }

/**
 * Spec 3 "resolve contract" for an entitled stream, given its record read at resolve time (the
 * "next tune" bucket of spec 2): a redirect plays the operator URL verbatim; a live channel
 * without a feed (feedKey null, or stopped: isLive false) is not broadcasting; a vod title
 * without a feed (or marked unavailable) is not available. A record that no longer exists is
 * treated as not entitled (deleting a stream purges its grants).
 */
export function decideResolve (streamId: string, record: StreamRecord | null): ResolveDecision {
  if (record === null) throw SdkError.notEntitled(streamId)
  if (record.redirect && record.url !== null) return { kind: 'cdn', url: record.url }
  if (record.type === 'vod') {
    if (record.feedKey === null || record.status === 'unavailable') throw SdkError.titleUnavailable()
    return { kind: 'p2p', type: 'vod', feedKey: record.feedKey, durationSec: record.durationSec }
  }
  if (record.feedKey === null || !record.isLive) throw SdkError.notBroadcasting()
  return { kind: 'p2p', type: 'live', feedKey: record.feedKey }
}

import { PLAYLIST_PATH } from './constants.js'
import { FeedError } from './errors.js'

// N is decimal without leading zeros, so 'seg01.ts' can never alias 'seg1.ts'.
const SEGMENT_NAME = /^seg(0|[1-9][0-9]{0,15})\.ts$/

/** A checked feed path: the playlist, or a segment with its sequence number. */
export type FeedPath =
  | { kind: 'playlist'; path: string }
  | { kind: 'segment'; path: string; sequence: number }

/**
 * Parses a feed path. The leading '/' is optional (`seg12.ts` and `/seg12.ts` are the same
 * file); anything but the flat layout is refused.
 * @throws FeedError `FEED_BAD_PATH`
 */
export function parseFeedPath (input: unknown): FeedPath {
  if (typeof input !== 'string') throw FeedError.badPath(input)
  const name = input.startsWith('/') ? input.slice(1) : input
  if ('/' + name === PLAYLIST_PATH) return { kind: 'playlist', path: PLAYLIST_PATH }
  const match = SEGMENT_NAME.exec(name)
  if (match === null) throw FeedError.badPath(input)
  const sequence = Number(match[1])
  if (!Number.isSafeInteger(sequence)) throw FeedError.badPath(input)
  return { kind: 'segment', path: '/' + name, sequence }
}

/** Parses a segment path or name; the playlist path is refused too. */
export function parseSegmentPath (input: unknown): { path: string; sequence: number } {
  const parsed = parseFeedPath(input)
  if (parsed.kind !== 'segment') throw FeedError.badPath(input)
  return parsed
}

/** The sequence number of a segment URI as written in a playlist (bare `seg<N>.ts`). */
export function segmentUri (uri: string): { path: string; sequence: number } {
  if (uri.startsWith('/')) throw FeedError.badPath(uri)
  return parseSegmentPath(uri)
}

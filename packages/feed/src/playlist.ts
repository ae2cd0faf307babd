import { FeedError } from './errors.js'
import type { ParsedPlaylist } from './index.js'

const INTEGER = /^[0-9]{1,15}$/
const DECIMAL = /^[0-9]{1,15}(\.[0-9]{1,15})?$/

function integerTag (line: string, tag: string): number {
  const value = line.slice(tag.length + 1).trim()
  if (!INTEGER.test(value)) throw FeedError.badPlaylist(`${tag} needs a decimal integer, got ${JSON.stringify(value.slice(0, 40))}`)
  return Number(value)
}

function extinfDuration (line: string): number {
  const rest = line.slice('#EXTINF:'.length)
  const comma = rest.indexOf(',')
  const value = (comma === -1 ? rest : rest.slice(0, comma)).trim()
  if (!DECIMAL.test(value)) throw FeedError.badPlaylist(`#EXTINF needs a duration, got ${JSON.stringify(value.slice(0, 40))}`)
  return Number(value)
}

/**
 * Parses an HLS media playlist (RFC 8216): segments in order with their #EXTINF durations,
 * #EXT-X-MEDIA-SEQUENCE (default 0), #EXT-X-TARGETDURATION (default 0 when absent) and
 * #EXT-X-ENDLIST. Other tags are ignored. URIs are returned as written.
 * @throws FeedError `FEED_BAD_PLAYLIST` without #EXTM3U first, for a master playlist, a
 * malformed tag value, or a URI that no #EXTINF precedes.
 */
export function parsePlaylist (text: string): ParsedPlaylist {
  if (typeof text !== 'string') throw FeedError.invalidArgument('text', 'must be a string')
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/).map((l) => l.trim())
  if (lines[0] !== '#EXTM3U') throw FeedError.badPlaylist('the first line must be #EXTM3U')
  const result: ParsedPlaylist = { mediaSequence: 0, targetDuration: 0, endList: false, segments: [], text }
  let duration: number | null = null
  for (const line of lines.slice(1)) {
    if (line === '') continue
    if (line.startsWith('#')) {
      if (line.startsWith('#EXTINF:')) duration = extinfDuration(line)
      else if (line.startsWith('#EXT-X-MEDIA-SEQUENCE:')) result.mediaSequence = integerTag(line, '#EXT-X-MEDIA-SEQUENCE')
      else if (line.startsWith('#EXT-X-TARGETDURATION:')) result.targetDuration = integerTag(line, '#EXT-X-TARGETDURATION')
      else if (line === '#EXT-X-ENDLIST') result.endList = true
      else if (line.startsWith('#EXT-X-STREAM-INF')) throw FeedError.badPlaylist('a master playlist is not a media playlist')
      continue
    }
    if (duration === null) throw FeedError.badPlaylist(`URI ${JSON.stringify(line.slice(0, 80))} has no #EXTINF`)
    result.segments.push({ uri: line, duration })
    duration = null
  }
  return result
}

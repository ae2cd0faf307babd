import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parsePlaylist, type FeedWriter } from '@arus/feed'

/** What an import put into the feed. */
export interface ImportResult { segments: number; bytes: number; durationSec: number }

/**
 * Copies a finished HLS rendition from the scratch dir into the title's feed (keep-all VOD
 * layout): every segment first, then the playlist that lists them. Yields between segments,
 * so the control API keeps answering while a long title imports.
 */
export async function importRendition (dir: string, writer: FeedWriter, init: { signal: AbortSignal; onProgress(fraction: number): void }): Promise<ImportResult> {
  const text = await readFile(join(dir, 'index.m3u8'), 'utf8')
  const playlist = parsePlaylist(text)
  if (!playlist.endList) throw new Error('ffmpeg left an unfinished playlist')
  let bytes = 0
  let durationSec = 0
  for (const [i, seg] of playlist.segments.entries()) {
    init.signal.throwIfAborted()
    const data = await readFile(join(dir, seg.uri))
    await writer.putSegment(seg.uri, data)
    bytes += data.byteLength
    durationSec += seg.duration
    init.onProgress((i + 1) / playlist.segments.length)
    await new Promise((resolve) => setImmediate(resolve))
  }
  await writer.putPlaylist(text)
  return { segments: playlist.segments.length, bytes, durationSec }
}

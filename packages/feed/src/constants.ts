/**
 * Feed layout version: one Hyperdrive per channel generation, flat `/index.m3u8` plus
 * `/seg<N>.ts` (N = ffmpeg's media sequence number), block-encrypted with the stream's
 * content key. Spec: ARCHITECTURE.md "Feeds"; spec/2-broadcaster-library-reseller-mcp.md
 * (broadcaster channel, library title). Bump on any change readers must know about.
 */
export const FEED_LAYOUT_VERSION = 1

/** The playlist's path in the drive. */
export const PLAYLIST_PATH = '/index.m3u8'

/** The stream content key and drive keys are 32 bytes. */
export const KEY_BYTES = 32

/** Default bound of waitFor / readFile / playlist / update({ wait: true }). */
export const DEFAULT_TIMEOUT_MS = 10_000

/** Default stall bound of createReadStream: abort when no block arrives for this long. */
export const DEFAULT_STALL_MS = 10_000

/** Default mirror poll period (fallback for missed fs.watch events). */
export const DEFAULT_POLL_MS = 250

/** Bounds of the mirror poll period. */
export const MIN_POLL_MS = 10
export const MAX_POLL_MS = 60_000

/** Largest playlist putPlaylist accepts (a 64-entry live window is ~3 KiB). */
export const MAX_PLAYLIST_BYTES = 1024 * 1024

/**
 * Live retention compacts the feed's cores in RocksDB after about this many bytes of
 * writes. Below hypercore-storage's 64 MiB write buffer, so the memtable never fills on its
 * own (which would allocate a second 70 MiB WAL) and holds at most this much in RAM.
 */
export const COMPACT_AFTER_BYTES = 32 * 1024 * 1024

/**
 * Per put / clear / del, what the write costs RocksDB beyond the payload (a rewritten 4 KiB
 * bitfield page per core, tree nodes, the bee node): measured ~46 KiB per segment cycle of
 * about seven operations. Counted toward COMPACT_AFTER_BYTES.
 */
export const WRITE_OVERHEAD_BYTES = 8 * 1024

/** How long one playlist read attempt may wait before re-reading the newest entry. */
export const PLAYLIST_ATTEMPT_MS = 1000

/**
 * Live retention's removal grace, in playlist updates: a segment that left a playlist of
 * `listed` segments stays readable for `listed + 1` more updates (RFC 8216 section 6.2.2: the
 * playlist's duration plus one segment), so that every segment listed by any playlist a viewer
 * read within that time can still be fetched.
 */
export function removalGrace (listed: number): number {
  return listed + 1
}

/**
 * `@arus/feed` — encrypted HLS feeds on a Hyperdrive: the writer the broadcaster and the
 * library use (including a mirror of an ffmpeg HLS scratch dir), and the reader the viewer
 * SDK serves from.
 *
 * One Hyperdrive per channel generation, encrypted with the stream's 32-byte content key
 * through hypercore block encryption. Blocks are encrypted before they are hashed, so a
 * keyless mirror can verify and serve ciphertext: it replicates the drive's blob core by
 * {@link FeedWriter.blobsKey}. Flat layout: `/index.m3u8` plus `/seg<N>.ts`; a segment is
 * always written before the playlist that lists it. Live feeds (`keep: 'window'`) clear the
 * blocks of expired segments, superseded playlists and unreachable drive metadata and
 * compact the store, so disk use stays O(window) plus RocksDB's fixed preallocation.
 *
 * Spec: /work/shared/ARCHITECTURE.md "Feeds" and "Local HLS serving";
 * /work/shared/spec/2-broadcaster-library-reseller-mcp.md (broadcaster channel, library).
 * @packageDocumentation
 */
import type { Readable } from 'node:stream'
import type Corestore from 'corestore'
import type Hyperdrive from 'hyperdrive'
import { FeedReaderImpl } from './reader.js'
import type { UploadShapingInit, UploadShapingStats } from './upload-shaping.js'
import { FeedWriterImpl } from './writer.js'

export { FeedError, FEED_ERROR_CODES } from './errors.js'
export type { FeedErrorCode } from './errors.js'
export { FEED_LAYOUT_VERSION, PLAYLIST_PATH, DEFAULT_TIMEOUT_MS, DEFAULT_STALL_MS, DEFAULT_POLL_MS, COMPACT_AFTER_BYTES, removalGrace } from './constants.js'
export { parsePlaylist } from './playlist.js'
export { parseFeedPath } from './paths.js'
export type { FeedPath } from './paths.js'
export { purgeFeed } from './purge.js'
export { refuseUploads } from './no-upload.js'
export { reannounce } from './announce.js'
export type { UploadRefusal } from './no-upload.js'

/** Options of {@link createFeedWriter}. */
export interface FeedWriterInit {
  /** A Corestore namespace or session the writer owns: it is closed with the writer. */
  store: Corestore
  /** 32 bytes: the stream content key. */
  encryptionKey: Uint8Array
  /** Reopen this existing generation (disk mode). `null` / absent: mint a new drive. */
  feedKey?: Uint8Array | null
  /**
   * `'window'` (live, default): clear expired segments, superseded playlists and unreachable
   * metadata, and compact. `'all'` (VOD): never clear anything.
   */
  keep?: 'window' | 'all'
  /**
   * Origin upload shaping of the drive's blob core (see {@link shapeUploads}); off by default.
   * The metadata core is never shaped: its blocks are tiny and every read goes through them.
   * A live origin with re-seeding viewers sets it; mirrors and viewers never do.
   */
  uploadShaping?: UploadShapingInit | false
}

/** Counters of one writer instance. */
export interface FeedWriterStats {
  /** Segments currently in the drive. */
  segments: number
  /** Segment and playlist bytes written by this instance. */
  bytesWritten: number
  /** Highest N of a `seg<N>.ts` in the drive (or written by this instance); null when none. */
  lastSequence: number | null
  /** Playlists written by this instance (an unchanged playlist is not written). */
  playlistVersion: number
  /** Block bytes this instance uploaded to peers (both cores), counted at the replication layer. */
  uploadedBytes: number
  /** Upload shaping counters (blob core); null when shaping is off. */
  shaping: UploadShapingStats | null
}

/** Options of {@link FeedWriter.mirror}. */
export interface FeedMirrorInit {
  /** Poll period of the fallback for missed fs.watch events, 10..60000 ms. Default 250. */
  pollMs?: number
  /** Stops the mirror when aborted. */
  signal?: AbortSignal
}

/**
 * A running mirror of an ffmpeg HLS scratch dir. Events: `'segment'` (path, byteLength)
 * after a segment is copied; `'playlist'` ({@link ParsedPlaylist}) after a playlist is
 * written; `'error'` (FeedError) for a failure it will retry on the next change. Errors
 * are dropped when nobody listens.
 */
export interface FeedMirror {
  readonly running: boolean
  on(event: 'segment' | 'playlist' | 'error', fn: (...a: any[]) => void): void
  /** Stops watching and waits for the copy in progress. Idempotent. */
  stop(): Promise<void>
}

/** The broadcaster's / library's side of a feed. */
export interface FeedWriter {
  /** Opens (or mints) the drive. Idempotent. @throws FEED_NOT_WRITABLE, FEED_DECRYPT_FAILED, FEED_CLOSED */
  ready(): Promise<void>
  /** The drive key (what register sends as feedKey, hex). After ready(), else FEED_NOT_READY. */
  readonly feedKey: Uint8Array
  /** Join this topic as a server to seed. After ready(), else FEED_NOT_READY. */
  readonly discoveryKey: Uint8Array
  /** The blob core's key, for keyless mirrors. */
  blobsKey(): Promise<Uint8Array>
  readonly drive: Hyperdrive
  /** Writes `/seg<N>.ts` (name with or without the leading '/'). */
  putSegment(name: string, bytes: Uint8Array): Promise<void>
  /**
   * Writes `/index.m3u8`. Every URI must be a bare `seg<N>.ts` already in the drive
   * (FEED_MISSING_SEGMENT otherwise); an unchanged text writes nothing. With keep
   * `'window'` it then clears segments that left the playlist (those written since the
   * previous playlist count as not yet listed), the playlist superseded one update ago and
   * unreachable drive metadata, and compacts after COMPACT_AFTER_BYTES.
   */
  putPlaylist(text: string): Promise<void>
  /** Watches an ffmpeg HLS scratch dir: copies each newly listed segment, then the playlist. */
  mirror(dir: string, init?: FeedMirrorInit): FeedMirror
  stats(): FeedWriterStats
  /** Stops mirrors, finishes queued writes, closes the drive and the store. Idempotent. */
  close(): Promise<void>
}

/**
 * Creates a feed writer; call `ready()` (or any write) to open it.
 * @throws FeedError `FEED_INVALID_ARGUMENT` for a bad store, key or keep.
 */
export function createFeedWriter (init: FeedWriterInit): FeedWriter {
  return new FeedWriterImpl(init)
}

/** Options of {@link openFeedReader}. */
export interface FeedReaderInit {
  /** The reader opens a session of it; the store itself stays open after close(). */
  store: Corestore
  feedKey: Uint8Array
  /** 32 bytes: the stream content key. */
  encryptionKey: Uint8Array
}

/** Options of bounded reads. */
export interface FeedWaitOptions {
  /** Default 10000 ms. */
  timeoutMs?: number
  signal?: AbortSignal
}

/** Options of {@link FeedReader.createReadStream}. */
export interface FeedReadStreamOptions {
  /** First byte, inclusive. Default 0. */
  start?: number
  /** Last byte, inclusive like HTTP Range; clamped to the file. Default: the last byte. */
  end?: number
  /** Abort with FEED_STALLED when no block arrives for this long. Default 10000 ms. */
  stallMs?: number
  signal?: AbortSignal
}

/** The viewer's side of a feed. The caller replicates `store` (join {@link FeedReader.discoveryKey}). */
export interface FeedReader {
  ready(): Promise<void>
  readonly drive: Hyperdrive
  /** Join this topic as a client (and as a server when re-seeding). */
  readonly discoveryKey: Uint8Array
  /** With `wait`, waits (bounded) for a peer, then for its newest length; false on timeout. */
  update(opts?: { wait?: boolean; timeoutMs?: number }): Promise<boolean>
  /** Resolves the entry once `path` exists (bounded by timeoutMs; rejects with FEED_TIMEOUT). */
  waitFor(path: string, opts?: FeedWaitOptions): Promise<{ byteLength: number }>
  /**
   * The entry of `path` at the newest version a peer confirms, or null when that version does
   * not have it: unlike waitFor, it never waits for the path to appear (FEED_TIMEOUT only when
   * no peer answers in time).
   */
  stat(path: string, opts?: FeedWaitOptions): Promise<{ byteLength: number } | null>
  /**
   * Streams bytes [start, end] (inclusive, like HTTP Range) as blocks arrive; aborts
   * (FEED_STALLED) if no block arrives for stallMs, and ends with FEED_NOT_FOUND as soon as a
   * newer version no longer has the file (expired or replaced). Errors on the stream: FEED_NOT_FOUND,
   * FEED_RANGE_NOT_SATISFIABLE, FEED_STALLED, FEED_ABORTED, FEED_DECRYPT_FAILED, FEED_CLOSED.
   * @throws FeedError synchronously for a bad path or option.
   */
  createReadStream(path: string, opts?: FeedReadStreamOptions): Readable
  /** The whole file. @throws FEED_NOT_FOUND, FEED_TIMEOUT, FEED_DECRYPT_FAILED */
  readFile(path: string, opts?: { timeoutMs?: number }): Promise<Uint8Array>
  /** Parses the current playlist (segments in order with durations, media sequence, endList flag). */
  playlist(opts?: { timeoutMs?: number }): Promise<ParsedPlaylist>
  /** Peers replicating the drive's metadata core. */
  peers(): number
  /** Ends open streams (FEED_CLOSED) and closes the drive and its store session. Idempotent. */
  close(): Promise<void>
}

/**
 * Opens a reader of the feed `feedKey`.
 * @throws FeedError `FEED_INVALID_ARGUMENT` for a bad store or key.
 */
export function openFeedReader (init: FeedReaderInit): FeedReader {
  return new FeedReaderImpl(init)
}

/** One media segment of a playlist. */
export interface PlaylistSegment { uri: string; duration: number }

/** A parsed HLS media playlist ({@link parsePlaylist}). */
export interface ParsedPlaylist {
  mediaSequence: number
  targetDuration: number
  endList: boolean
  segments: PlaylistSegment[]
  /** The playlist text as given. */
  text: string
}

export { shapeUploads, RELAY_IDLE_MS } from './upload-shaping.js'
export type { UploadShaper, UploadShapingInit, UploadShapingStats } from './upload-shaping.js'
export { createEgressBudget, RELAY_ACTIVE_MS } from './egress-budget.js'
export type { EgressBudget, EgressBudgetInit, EgressBudgetStats } from './egress-budget.js'
export { paceRequests } from './request-pacing.js'
export { ORIGIN_PROOF_EXTENSION, originProofs, watchOrigins, type OriginProofSender, type OriginWatch } from './origin-proof.js'
export type { RequestPacer, RequestPacingInit } from './request-pacing.js'

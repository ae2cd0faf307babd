/**
 * Every code `@arus/feed` can throw (or emit on a mirror's `'error'`), with its one-line
 * meaning. Codes are stable and never reused; callers match on `err.code`, never on text.
 */
export const FEED_ERROR_CODES = {
  FEED_INVALID_ARGUMENT: 'An option or argument has the wrong type or range (store, keys, bytes, timeouts, byte range).',
  FEED_BAD_PATH: 'A path or playlist URI is not `/index.m3u8` or `/seg<N>.ts` (N decimal, no leading zeros).',
  FEED_BAD_PLAYLIST: 'A playlist is not an HLS media playlist (no #EXTM3U header, a bad tag value, a URI without #EXTINF).',
  FEED_MISSING_SEGMENT: 'putPlaylist lists a segment that was never written to the drive (segments go first).',
  FEED_NOT_READY: 'feedKey / discoveryKey was read before ready() resolved.',
  FEED_NOT_WRITABLE: 'The drive opened by the writer (feedKey given) is not writable from this store.',
  FEED_DECRYPT_FAILED: 'Drive metadata did not decode: the encryptionKey is wrong, or the drive is not a feed.',
  FEED_TIMEOUT: 'A bounded wait (waitFor, readFile, playlist, update) ran out before the data arrived.',
  FEED_STALLED: 'A read stream received no block for stallMs and was aborted.',
  FEED_NOT_FOUND: 'The path is absent from the latest version of the drive that a peer confirmed.',
  FEED_RANGE_NOT_SATISFIABLE: 'A read starts at or beyond the end of the file (HTTP 416).',
  FEED_ABORTED: 'The caller\'s AbortSignal fired; `cause` is the signal\'s reason.',
  FEED_CLOSED: 'The writer, reader or mirror was used after close() / stop().',
  FEED_READ_FAILED: 'Reading the drive failed for another reason; `cause` is the underlying error.',
  FEED_MIRROR_SOURCE: 'A mirror could not read a listed segment or the playlist from the scratch dir (emitted, retried on the next change).'
} as const

/** One of the codes in {@link FEED_ERROR_CODES}. */
export type FeedErrorCode = keyof typeof FEED_ERROR_CODES

/** The only error class `@arus/feed` throws. */
export class FeedError extends Error {
  readonly code: FeedErrorCode

  constructor (code: FeedErrorCode, message: string, opts: { cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause })
    this.name = 'FeedError'
    this.code = code
  }

  static invalidArgument (name: string, why: string): FeedError {
    return new FeedError('FEED_INVALID_ARGUMENT', `invalid ${name}: ${why}`)
  }

  static badPath (path: unknown): FeedError {
    const shown = typeof path === 'string' ? JSON.stringify(path.slice(0, 200)) : typeof path
    return new FeedError('FEED_BAD_PATH', `bad feed path ${shown}: expected /index.m3u8 or /seg<N>.ts`)
  }

  static badPlaylist (why: string): FeedError {
    return new FeedError('FEED_BAD_PLAYLIST', `bad playlist: ${why}`)
  }

  static missingSegment (uri: string): FeedError {
    return new FeedError('FEED_MISSING_SEGMENT', `the playlist lists ${uri}, which is not in the drive`)
  }

  static notReady (what: string): FeedError {
    return new FeedError('FEED_NOT_READY', `${what} is known only after ready() resolves`)
  }

  static notWritable (): FeedError {
    return new FeedError('FEED_NOT_WRITABLE', 'the drive for this feedKey is not writable from this store')
  }

  static decryptFailed (cause?: unknown): FeedError {
    return new FeedError('FEED_DECRYPT_FAILED', 'feed metadata does not decode: wrong encryptionKey or not a feed drive', { cause })
  }

  static timeout (what: string, ms: number, cause?: unknown): FeedError {
    return new FeedError('FEED_TIMEOUT', `${what}: nothing arrived within ${ms} ms`, { cause })
  }

  static stalled (path: string, ms: number): FeedError {
    return new FeedError('FEED_STALLED', `read of ${path} stalled: no data for ${ms} ms`)
  }

  static notFound (path: string): FeedError {
    return new FeedError('FEED_NOT_FOUND', `${path} is not in the feed`)
  }

  static rangeNotSatisfiable (path: string, start: number, byteLength: number): FeedError {
    return new FeedError('FEED_RANGE_NOT_SATISFIABLE', `range start ${start} is beyond ${path} (${byteLength} bytes)`)
  }

  static aborted (reason: unknown): FeedError {
    return new FeedError('FEED_ABORTED', 'the operation was aborted', { cause: reason })
  }

  static closed (what: 'writer' | 'reader' | 'mirror'): FeedError {
    return new FeedError('FEED_CLOSED', `the feed ${what} is closed`)
  }

  static readFailed (path: string, cause: unknown): FeedError {
    return new FeedError('FEED_READ_FAILED', `reading ${path} failed`, { cause })
  }

  static mirrorSource (file: string, cause: unknown): FeedError {
    return new FeedError('FEED_MIRROR_SOURCE', `cannot read ${file} from the scratch dir`, { cause })
  }
}

import { shapeUploads, type UploadShaper, type UploadShapingInit } from './upload-shaping.js'
import b4a from 'b4a'
import type Corestore from 'corestore'
import Hyperdrive from 'hyperdrive'
import { MAX_PLAYLIST_BYTES, PLAYLIST_PATH, removalGrace } from './constants.js'
import { FeedError } from './errors.js'
import { FeedMirrorImpl } from './mirror.js'
import type { MirrorTarget } from './mirror.js'
import { parseFeedPath, parseSegmentPath, segmentUri } from './paths.js'
import { parsePlaylist } from './playlist.js'
import { Retention } from './retention.js'
import { checkKey, checkOptions, checkStore } from './validate.js'
import { mapReadError } from './wait.js'
import type { FeedMirror, FeedMirrorInit, FeedWriter, FeedWriterInit, FeedWriterStats } from './index.js'

function asBuffer (bytes: Uint8Array): Buffer {
  return b4a.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

export class FeedWriterImpl implements FeedWriter, MirrorTarget {
  readonly drive: Hyperdrive
  private readonly keep: 'window' | 'all'
  private readonly retention: Retention | null
  private readonly segments = new Map<number, number>() // sequence -> byteLength
  private pending = new Set<number>() // written since the last playlist
  private readonly unlisted = new Map<number, number>() // sequence -> playlistVersion when it left the playlist
  private readonly mirrors = new Set<FeedMirrorImpl>()
  private lastPlaylist: string | null = null
  private bytesWritten = 0
  private lastSequence: number | null = null
  private playlistVersion = 0
  private opening: Promise<void> | null = null
  private opened = false
  private closing: Promise<void> | null = null
  private queue: Promise<unknown> = Promise.resolve()
  private readonly shaping: UploadShapingInit | false
  private shaper: UploadShaper | null = null
  private uploadedBytes = 0
  private readonly onUpload = (_index: number, bytes: number): void => { this.uploadedBytes += bytes }

  constructor (init: FeedWriterInit) {
    const { store, encryptionKey, feedKey, keep = 'window' } = checkOptions(init)
    const checkedStore: Corestore = checkStore(store)
    const key = checkKey('encryptionKey', encryptionKey)
    const driveKey = feedKey === undefined || feedKey === null ? null : checkKey('feedKey', feedKey)
    if (keep !== 'window' && keep !== 'all') throw FeedError.invalidArgument('keep', "must be 'window' or 'all'")
    this.keep = keep
    this.shaping = init.uploadShaping ?? false
    this.drive = new Hyperdrive(checkedStore, driveKey, { encryptionKey: key })
    this.retention = keep === 'window' ? new Retention(this.drive) : null
  }

  get feedKey (): Uint8Array {
    if (!this.opened) throw FeedError.notReady('feedKey')
    return this.drive.key
  }

  get discoveryKey (): Uint8Array {
    if (!this.opened) throw FeedError.notReady('discoveryKey')
    return this.drive.discoveryKey
  }

  ready (): Promise<void> {
    if (this.closing !== null) return Promise.reject(FeedError.closed('writer'))
    this.opening ??= this.open()
    return this.opening
  }

  private async open (): Promise<void> {
    try {
      await this.drive.ready()
    } catch (err) {
      throw mapReadError(err, '/', 0)
    }
    if (!this.drive.writable) throw FeedError.notWritable()
    let blobs
    try {
      blobs = await this.drive.getBlobs()
    } catch (err) {
      throw openError(err)
    }
    for (const core of blobs ? [this.drive.core, blobs.core] : [this.drive.core]) core.on('upload', this.onUpload)
    // Only the blob core is shaped: the metadata core's blocks are a few hundred bytes each and
    // lie on every viewer's critical path (a segment is found through them before it is read),
    // so holding them would add a relay hop to the edge delay for almost no upload saved.
    if (this.shaping !== false && blobs) this.shaper = shapeUploads(blobs.core, this.shaping)
    try {
      await this.loadState()
    } catch (err) {
      throw openError(err)
    }
    this.opened = true
  }

  // Reopening a generation (disk mode): pick up what is already in the drive.
  private async loadState (): Promise<void> {
    for await (const entry of this.drive.list('/')) {
      let parsed
      try { parsed = parseFeedPath(entry.key) } catch { continue }
      if (parsed.kind === 'playlist') {
        const text = await this.drive.get(PLAYLIST_PATH)
        this.lastPlaylist = text === null ? null : b4a.toString(text, 'utf8')
      } else {
        this.segments.set(parsed.sequence, entry.value.blob?.byteLength ?? 0)
        this.lastSequence = Math.max(this.lastSequence ?? 0, parsed.sequence)
      }
    }
  }

  /** Runs writes one at a time, in call order, after ready(). */
  private run<T> (op: () => Promise<T>): Promise<T> {
    if (this.closing !== null) return Promise.reject(FeedError.closed('writer'))
    const result = this.queue.then(async () => {
      await this.ready()
      return op()
    })
    this.queue = result.catch(() => {})
    return result
  }

  async blobsKey (): Promise<Uint8Array> {
    await this.ready()
    const blobs = await this.drive.getBlobs()
    if (blobs === null) throw FeedError.closed('writer')
    return blobs.core.key as Buffer
  }

  putSegment (name: string, bytes: Uint8Array): Promise<void> {
    let seg: { path: string; sequence: number }
    try {
      seg = parseSegmentPath(name)
      if (!(bytes instanceof Uint8Array)) throw FeedError.invalidArgument('bytes', 'must be a Uint8Array')
    } catch (err) {
      return Promise.reject(err)
    }
    return this.run(async () => {
      const replaced = this.retention !== null && this.segments.has(seg.sequence) ? await this.drive.entry(seg.path) : null
      await this.drive.put(seg.path, asBuffer(bytes))
      if (replaced?.value.blob) {
        await this.retention?.clearBlob(replaced.value.blob)
        await this.retention?.settle()
      }
      this.retention?.wrote(bytes.byteLength)
      this.segments.set(seg.sequence, bytes.byteLength)
      this.unlisted.delete(seg.sequence)
      this.pending.add(seg.sequence)
      this.bytesWritten += bytes.byteLength
      this.lastSequence = Math.max(this.lastSequence ?? 0, seg.sequence)
    })
  }

  putPlaylist (text: string): Promise<void> {
    let listed: Set<number>
    try {
      if (typeof text !== 'string') throw FeedError.invalidArgument('text', 'must be a string')
      if (Buffer.byteLength(text) > MAX_PLAYLIST_BYTES) throw FeedError.invalidArgument('text', `exceeds ${MAX_PLAYLIST_BYTES} bytes`)
      listed = new Set(parsePlaylist(text).segments.map((s) => segmentUri(s.uri).sequence))
    } catch (err) {
      return Promise.reject(err)
    }
    return this.run(async () => {
      for (const sequence of listed) if (!this.segments.has(sequence)) throw FeedError.missingSegment(`seg${sequence}.ts`)
      if (text === this.lastPlaylist) return
      const previous = this.retention === null ? null : await this.drive.entry(PLAYLIST_PATH)
      const bytes = b4a.from(text, 'utf8')
      await this.drive.put(PLAYLIST_PATH, bytes)
      this.lastPlaylist = text
      this.playlistVersion++
      this.bytesWritten += bytes.byteLength
      this.retention?.wrote(bytes.byteLength)
      if (this.retention !== null) await this.retire(listed, previous?.value.blob ?? null)
      this.pending = new Set()
    })
  }

  /**
   * Segments neither listed nor written since the previous playlist have left the window. Each
   * stays readable for a removal grace of `listed + 1` more playlists (about the playlist's
   * duration plus one segment: RFC 8216 section 6.2.2), because a viewer that read an earlier
   * playlist may still be fetching it; then its blocks are cleared and its entry deleted.
   */
  private async retire (listed: Set<number>, previous: Hyperdrive.BlobRef | null): Promise<void> {
    const retention = this.retention as Retention
    const grace = removalGrace(listed.size)
    for (const sequence of [...this.segments.keys()].sort((a, b) => a - b)) {
      if (listed.has(sequence) || this.pending.has(sequence)) { this.unlisted.delete(sequence); continue }
      const since = this.unlisted.get(sequence) ?? this.playlistVersion
      this.unlisted.set(sequence, since)
      if (this.playlistVersion - since < grace) continue
      await retention.expire(`/seg${sequence}.ts`)
      this.segments.delete(sequence)
      this.unlisted.delete(sequence)
    }
    await retention.afterPlaylist(previous)
  }

  mirror (dir: string, init?: FeedMirrorInit): FeedMirror {
    if (this.closing !== null) throw FeedError.closed('writer')
    const mirror = new FeedMirrorImpl(this, dir, init, () => this.mirrors.delete(mirror))
    this.mirrors.add(mirror)
    mirror.start()
    return mirror
  }

  stats (): FeedWriterStats {
    return {
      segments: this.segments.size,
      bytesWritten: this.bytesWritten,
      lastSequence: this.lastSequence,
      playlistVersion: this.playlistVersion,
      uploadedBytes: this.uploadedBytes,
      shaping: this.shaper?.stats() ?? null
    }
  }

  close (): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([...this.mirrors].map((m) => m.stop()))
      await this.queue
      await this.opening?.catch(() => {})
      this.shaper?.close()
      await this.drive.close()
    })()
    return this.closing
  }
}

/**
 * An error while opening the writer's own (local) drive: metadata that does not decode there
 * (hyperbee's DECODING_ERROR, or a bare RangeError from decoding garbage) means a wrong
 * encryptionKey or not a feed; anything else maps as a read error.
 */
function openError (err: unknown): FeedError {
  if (err instanceof FeedError) return err
  const code = (err as { code?: unknown } | null)?.code
  return code === undefined || code === 'DECODING_ERROR' ? FeedError.decryptFailed(err) : mapReadError(err, '/', 0)
}

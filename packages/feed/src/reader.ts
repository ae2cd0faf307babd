import type { Readable } from 'node:stream'
import b4a from 'b4a'
import Hyperdrive from 'hyperdrive'
import { DEFAULT_STALL_MS, DEFAULT_TIMEOUT_MS, PLAYLIST_ATTEMPT_MS, PLAYLIST_PATH } from './constants.js'
import { FeedError } from './errors.js'
import { parseFeedPath } from './paths.js'
import { parsePlaylist } from './playlist.js'
import { StallingReadable } from './read-stream.js'
import type { InnerStream } from './read-stream.js'
import { checkKey, checkMs, checkOffset, checkOptions, checkSignal, checkStore } from './validate.js'
import { ChangeSignal, bounded, mapReadError, remaining } from './wait.js'
import type { FeedReadStreamOptions, FeedReader, FeedReaderInit, FeedWaitOptions, ParsedPlaylist } from './index.js'

// Between two looks for a path that is not there yet, when no event woke the waiter.
const RECHECK_MS = 1000
// One attempt of a metadata lookup before moving to the newest version.
const LOOKUP_ATTEMPT_MS = 1500

export class FeedReaderImpl implements FeedReader {
  readonly drive: Hyperdrive
  private readonly streams = new Set<StallingReadable>()
  private opening: Promise<void> | null = null
  private closing: Promise<void> | null = null

  constructor (init: FeedReaderInit) {
    const { store, feedKey, encryptionKey } = checkOptions(init)
    const session = checkStore(store).session()
    // No Hyperbee extension: with it every lookup that waits for a block is broadcast to every
    // peer, and each peer answers it with a lookup of its own (work that grows with the audience).
    this.drive = new Hyperdrive(session, checkKey('feedKey', feedKey), { encryptionKey: checkKey('encryptionKey', encryptionKey), extension: false })
  }

  get discoveryKey (): Uint8Array {
    const key = this.drive.discoveryKey as Buffer | null
    if (key === null) throw FeedError.notReady('discoveryKey')
    return key
  }

  ready (): Promise<void> {
    if (this.closing !== null) return Promise.reject(FeedError.closed('reader'))
    this.opening ??= this.drive.ready().catch((err: unknown) => { throw mapReadError(err, '/', 0) })
    return this.opening
  }

  peers (): number {
    return this.drive.core.peers.length
  }

  private checkOpen (): void {
    if (this.closing !== null) throw FeedError.closed('reader')
  }

  async update (opts?: { wait?: boolean; timeoutMs?: number }): Promise<boolean> {
    const { wait = false, timeoutMs } = checkOptions(opts)
    const ms = checkMs('timeoutMs', timeoutMs, DEFAULT_TIMEOUT_MS)
    await this.ready()
    if (wait !== true) return this.drive.update()
    return this.refresh(Date.now() + ms)
  }

  /** Waits (until deadline) for a peer, then for its newest length; false on timeout. */
  private async refresh (deadline: number, signal?: AbortSignal): Promise<boolean> {
    const core = this.drive.core
    const peers = new ChangeSignal([[core, ['peer-add']]])
    try {
      // With no peer yet, hypercore answers a waiting update with false at once.
      while (core.peers.length === 0 && remaining(deadline) > 0 && signal?.aborted !== true) {
        await peers.wait(peers.seen, remaining(deadline), signal)
        this.checkOpen()
      }
      if (core.peers.length === 0) return false
      return await bounded(this.drive.update({ wait: true }), remaining(deadline), () => FeedError.timeout('update', 0), signal)
    } catch (err) {
      if ((err as FeedError).code === 'FEED_TIMEOUT') return false
      throw err
    } finally {
      peers.close()
    }
  }

  /**
   * The entry of `path` at the reader's current version (bounded). A reader more than one
   * update behind may walk tree nodes the writer has already collected: each attempt is
   * short, and a failed one moves to the newest version before the next.
   */
  private async lookup (path: string, deadline: number, signal?: AbortSignal): Promise<Hyperdrive.Entry | null> {
    for (;;) {
      this.checkOpen()
      const ms = Math.max(1, Math.min(remaining(deadline), LOOKUP_ATTEMPT_MS))
      try {
        return await bounded(this.drive.entry(path, { timeout: ms }), ms, () => FeedError.timeout(`lookup of ${path}`, ms), signal)
      } catch (err) {
        const mapped = mapReadError(err, path, ms)
        if (mapped.code !== 'FEED_TIMEOUT' || remaining(deadline) === 0) throw mapped
        await this.refresh(deadline, signal)
      }
    }
  }

  /** The entry at the newest version a peer confirms; FEED_NOT_FOUND when absent there. */
  private async resolve (path: string, deadline: number, signal?: AbortSignal): Promise<Hyperdrive.Entry> {
    const entry = await this.lookup(path, deadline, signal)
    if (entry !== null) return entry
    if (!(await this.refresh(deadline, signal))) {
      if (signal?.aborted === true) throw FeedError.aborted(signal.reason)
      if (remaining(deadline) === 0) throw FeedError.timeout(`lookup of ${path}`, 0)
    }
    const fresh = await this.lookup(path, deadline, signal)
    if (fresh === null) throw FeedError.notFound(path)
    return fresh
  }

  async waitFor (path: string, opts?: FeedWaitOptions): Promise<{ byteLength: number }> {
    const p = parseFeedPath(path).path
    const { timeoutMs, signal: s } = checkOptions(opts)
    const ms = checkMs('timeoutMs', timeoutMs, DEFAULT_TIMEOUT_MS)
    const signal = checkSignal(s)
    await this.ready()
    const deadline = Date.now() + ms
    const changes = new ChangeSignal([[this.drive.core, ['append', 'truncate', 'peer-add']]])
    try {
      for (;;) {
        if (signal?.aborted === true) throw FeedError.aborted(signal.reason)
        const seen = changes.seen
        const entry = await this.lookup(p, deadline, signal)
        if (entry !== null) return { byteLength: entry.value.blob?.byteLength ?? 0 }
        // Replication normally pushes new lengths ('append'); ask peers too, in case.
        if (this.drive.core.peers.length > 0) this.drive.update({ wait: true }).catch(() => {})
        if (remaining(deadline) === 0) throw FeedError.timeout(`wait for ${p}`, ms)
        await changes.wait(seen, Math.min(remaining(deadline), RECHECK_MS), signal)
      }
    } catch (err) {
      if ((err as FeedError).code === 'FEED_TIMEOUT') throw FeedError.timeout(`wait for ${p}`, ms, err)
      throw err
    } finally {
      changes.close()
    }
  }

  async readFile (path: string, opts?: { timeoutMs?: number }): Promise<Uint8Array> {
    const p = parseFeedPath(path).path
    const ms = checkMs('timeoutMs', checkOptions(opts).timeoutMs, DEFAULT_TIMEOUT_MS)
    await this.ready()
    const deadline = Date.now() + ms
    await this.resolve(p, deadline)
    const left = Math.max(1, remaining(deadline))
    let bytes: Buffer | null
    try {
      bytes = await bounded(this.drive.get(p, { timeout: left }), left, () => FeedError.timeout(`read of ${p}`, ms))
    } catch (err) {
      throw mapReadError(err, p, ms)
    }
    if (bytes === null) {
      // Deleted since the lookup (an expired segment), or an entry without content.
      if ((await this.lookup(p, deadline)) === null) throw FeedError.notFound(p)
      return new Uint8Array(0)
    }
    return bytes
  }

  async playlist (opts?: { timeoutMs?: number }): Promise<ParsedPlaylist> {
    const ms = checkMs('timeoutMs', checkOptions(opts).timeoutMs, DEFAULT_TIMEOUT_MS)
    const deadline = Date.now() + ms
    await this.waitFor(PLAYLIST_PATH, { timeoutMs: ms })
    // A live writer replaces the playlist every segment; if the entry we hold goes stale
    // before its blocks arrive, the next attempt reads the newest one.
    for (;;) {
      try {
        const bytes = await this.readFile(PLAYLIST_PATH, { timeoutMs: Math.max(1, Math.min(remaining(deadline), PLAYLIST_ATTEMPT_MS)) })
        return parsePlaylist(b4a.toString(bytes, 'utf8'))
      } catch (err) {
        if ((err as FeedError).code !== 'FEED_TIMEOUT') throw err
        if (remaining(deadline) === 0) throw FeedError.timeout(`read of ${PLAYLIST_PATH}`, ms, err)
      }
    }
  }

  createReadStream (path: string, opts?: FeedReadStreamOptions): Readable {
    const p = parseFeedPath(path).path
    const o = checkOptions(opts)
    const start = checkOffset('start', o.start)
    const end = checkOffset('end', o.end)
    if (start !== undefined && end !== undefined && end < start) throw FeedError.invalidArgument('end', 'must be >= start')
    const stallMs = checkMs('stallMs', o.stallMs, DEFAULT_STALL_MS, 1)
    const signal = checkSignal(o.signal)
    this.checkOpen()
    const open = async (): Promise<InnerStream | null> => {
      const opened = await this.openRange(p, start, end, stallMs, signal)
      if (opened !== null) this.watchGone(stream, p, opened.blob)
      return opened?.inner ?? null
    }
    const stream: StallingReadable = new StallingReadable(open, p, stallMs, signal, (s) => this.streams.delete(s))
    this.streams.add(stream)
    return stream
  }

  async stat (path: string, opts?: FeedWaitOptions): Promise<{ byteLength: number } | null> {
    const p = parseFeedPath(path).path
    const { timeoutMs, signal: s } = checkOptions(opts)
    const ms = checkMs('timeoutMs', timeoutMs, DEFAULT_TIMEOUT_MS)
    const signal = checkSignal(s)
    await this.ready()
    try {
      const entry = await this.resolve(p, Date.now() + ms, signal)
      return { byteLength: entry.value.blob?.byteLength ?? 0 }
    } catch (err) {
      if ((err as FeedError).code === 'FEED_NOT_FOUND') return null
      throw err
    }
  }

  /**
   * Ends `stream` with FEED_NOT_FOUND as soon as a newer version of the drive no longer has
   * `path` with this blob (the writer expired or replaced it): its blocks are being cleared
   * everywhere, so waiting for them would only run into the stall bound.
   */
  private watchGone (stream: StallingReadable, path: string, blob: Hyperdrive.BlobRef): void {
    if (stream.destroyed) return
    const core = this.drive.core
    let checking = false
    let again = false
    const check = async (): Promise<void> => {
      if (checking) { again = true; return }
      checking = true
      try {
        do {
          again = false
          if (stream.destroyed) return
          let entry: Hyperdrive.Entry | null
          try {
            entry = await this.drive.entry(path, { timeout: LOOKUP_ATTEMPT_MS })
          } catch {
            continue // not answerable now: the next append asks again
          }
          const current = entry?.value.blob ?? null
          if (current === null || current.blockOffset !== blob.blockOffset) stream.destroy(FeedError.notFound(path))
        } while (again)
      } finally {
        checking = false
      }
    }
    const onChange = (): void => { void check() }
    core.on('append', onChange)
    core.on('truncate', onChange)
    stream.once('close', () => { core.off('append', onChange); core.off('truncate', onChange) })
  }

  private async openRange (path: string, start: number | undefined, end: number | undefined, stallMs: number, signal?: AbortSignal): Promise<{ inner: InnerStream; blob: Hyperdrive.BlobRef } | null> {
    await this.ready()
    const deadline = Date.now() + stallMs
    const entry = await this.resolve(path, deadline, signal)
    const blob = entry.value.blob
    const byteLength = blob?.byteLength ?? 0
    if (start !== undefined && start >= byteLength) throw FeedError.rangeNotSatisfiable(path, start, byteLength)
    if (blob === null || byteLength === 0) return null
    const blobs = await bounded(this.drive.getBlobs(), Math.max(1, remaining(deadline)), () => FeedError.timeout(`read of ${path}`, stallMs), signal)
    if (blobs === null) throw FeedError.closed('reader')
    const last = Math.min(end ?? byteLength - 1, byteLength - 1)
    return { inner: blobs.createReadStream(blob, { start: start ?? 0, end: last, wait: true }) as InnerStream, blob }
  }

  close (): Promise<void> {
    this.closing ??= (async () => {
      for (const stream of [...this.streams]) stream.destroy(FeedError.closed('reader'))
      await this.opening?.catch(() => {})
      await this.drive.close()
    })()
    return this.closing
  }
}

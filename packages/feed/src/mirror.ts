import { EventEmitter } from 'node:events'
import { watch } from 'node:fs'
import type { FSWatcher } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { DEFAULT_POLL_MS, MAX_POLL_MS, MIN_POLL_MS } from './constants.js'
import { FeedError } from './errors.js'
import { segmentUri } from './paths.js'
import { parsePlaylist } from './playlist.js'
import { checkMs, checkOptions, checkSignal } from './validate.js'
import type { FeedMirror, FeedMirrorInit, ParsedPlaylist } from './index.js'

/** What a mirror needs from the writer. */
export interface MirrorTarget {
  putSegment(name: string, bytes: Uint8Array): Promise<void>
  putPlaylist(text: string): Promise<void>
}

const PLAYLIST_FILE = 'index.m3u8'

/**
 * Follows an ffmpeg HLS scratch dir (`-hls_flags temp_file`: each segment and each
 * playlist appear complete, by rename). On each playlist change it copies every listed
 * segment it has not copied yet, then writes the playlist. A segment file is identified by
 * inode, size and mtime, so an ffmpeg restarted in the same dir (numbering from 0 again)
 * never leaves stale bytes behind a reused name. fs.watch gives low latency; a stat poll
 * every pollMs catches what inotify misses. Syncs never overlap: a change during a sync
 * schedules one more.
 */
export class FeedMirrorImpl implements FeedMirror {
  private readonly events = new EventEmitter()
  private readonly pollMs: number
  private readonly signal: AbortSignal | undefined
  private watcher: FSWatcher | null = null
  private poller: NodeJS.Timeout | null = null
  private syncing: Promise<void> | null = null
  private dirty = false
  private stopped = false
  private stopping: Promise<void> | null = null
  private lastText: string | null = null
  private lastStat = ''
  private copied = new Map<number, string>() // sequence -> identity of the file copied
  private readonly onAbort = (): void => { void this.stop() }

  constructor (private readonly target: MirrorTarget, private readonly dir: string, init: FeedMirrorInit | undefined, private readonly onStop: () => void) {
    if (typeof dir !== 'string' || dir === '') throw FeedError.invalidArgument('dir', 'must be a non-empty path')
    const opts = checkOptions(init)
    this.pollMs = checkMs('pollMs', opts.pollMs, DEFAULT_POLL_MS, MIN_POLL_MS)
    if (this.pollMs > MAX_POLL_MS) throw FeedError.invalidArgument('pollMs', `must be at most ${MAX_POLL_MS}`)
    this.signal = checkSignal(opts.signal)
  }

  get running (): boolean {
    return !this.stopped
  }

  on (event: 'segment' | 'playlist' | 'error', fn: (...a: any[]) => void): void {
    this.events.on(event, fn)
  }

  start (): void {
    if (this.signal?.aborted === true) { void this.stop(); return }
    this.signal?.addEventListener('abort', this.onAbort, { once: true })
    try {
      this.watcher = watch(this.dir, (_event, filename) => {
        if (filename === null || filename === PLAYLIST_FILE) this.kick()
      })
      this.watcher.on('error', (err) => {
        this.emitError(FeedError.mirrorSource(this.dir, err))
        this.watcher?.close()
        this.watcher = null // the poll carries on alone
      })
    } catch (err) {
      process.nextTick(() => this.emitError(FeedError.mirrorSource(this.dir, err))) // after on('error')
    }
    this.poller = setInterval(() => { void this.poll() }, this.pollMs)
    this.kick()
  }

  private emitError (err: FeedError): void {
    if (this.events.listenerCount('error') > 0) this.events.emit('error', err)
  }

  private async poll (): Promise<void> {
    try {
      const s = await stat(join(this.dir, PLAYLIST_FILE))
      const key = `${s.ino}:${s.size}:${s.mtimeMs}`
      if (key === this.lastStat) return
      this.lastStat = key
    } catch {
      return // no playlist yet
    }
    this.kick()
  }

  private kick (): void {
    if (this.stopped) return
    if (this.syncing !== null) { this.dirty = true; return }
    this.syncing = (async () => {
      do {
        this.dirty = false
        await this.syncOnce()
      } while (this.dirty && !this.stopped)
      this.syncing = null
    })()
  }

  private async syncOnce (): Promise<void> {
    let text: string
    try {
      text = await readFile(join(this.dir, PLAYLIST_FILE), 'utf8')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.emitError(FeedError.mirrorSource(PLAYLIST_FILE, err))
      return
    }
    if (text === this.lastText || this.stopped) return
    try {
      const parsed = parsePlaylist(text)
      if (!(await this.copySegments(parsed))) return
      await this.target.putPlaylist(text)
      this.lastText = text
      this.events.emit('playlist', parsed)
    } catch (err) {
      if ((err as FeedError).code === 'FEED_CLOSED') { void this.stop(); return }
      this.lastText = text // a bad playlist is reported once, not on every poll
      this.emitError(err instanceof FeedError ? err : FeedError.mirrorSource(PLAYLIST_FILE, err))
    }
  }

  /** Copies the listed segments not copied yet; false when one cannot be read (retried later). */
  private async copySegments (parsed: ParsedPlaylist): Promise<boolean> {
    const listed = new Map<number, string>()
    for (const { uri } of parsed.segments) {
      const { path, sequence } = segmentUri(uri)
      const file = join(this.dir, path.slice(1))
      let bytes: Buffer
      let identity: string
      try {
        const s = await stat(file)
        identity = `${s.ino}:${s.size}:${s.mtimeMs}`
        listed.set(sequence, identity)
        if (this.copied.get(sequence) === identity) continue
        bytes = await readFile(file)
      } catch (err) {
        this.emitError(FeedError.mirrorSource(uri, err))
        return false
      }
      if (this.stopped) return false
      await this.target.putSegment(path, bytes)
      this.copied.set(sequence, identity)
      this.events.emit('segment', path, bytes.byteLength)
    }
    this.copied = listed
    return true
  }

  stop (): Promise<void> {
    this.stopping ??= (async () => {
      this.stopped = true
      this.signal?.removeEventListener('abort', this.onAbort)
      this.watcher?.close()
      this.watcher = null
      if (this.poller !== null) clearInterval(this.poller)
      this.poller = null
      await this.syncing
      this.onStop()
    })()
    return this.stopping
  }
}

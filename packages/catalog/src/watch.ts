import b4a from 'b4a'
import type Hyperbee from 'hyperbee'
import type Hypercore from 'hypercore'
import { Node as BeeNode } from 'hyperbee/lib/messages.js'
import { decodeRecord } from './codec.js'
import type { CatalogRecord } from './codec.js'
import { DEFAULT_READ_TIMEOUT_MS, WATCH_HISTORY_MAX, WATCH_RETRY_MS } from './constants.js'
import { CatalogError } from './errors.js'
import { prefixRange } from './keys.js'

/** One changed key: its new record, or null when deleted (or no longer a valid record). */
export interface RangeChange<V = CatalogRecord> { key: string; value: V | null }

/** Options of {@link watchRange}. */
export interface WatchRangeOptions {
  /** Report the range's current content as the first change set. Default false. */
  initial?: boolean
  /** Called for each key whose stored value fails its schema (reported as null). */
  onInvalid?: (key: string) => void
  /** Called when a diff fails (it is retried) or onChange throws. Default: ignore. */
  onError?: (err: unknown) => void
  /** How long one read waits for blocks from peers before the diff fails and is retried. Default 10000. */
  readTimeoutMs?: number
}

/** A running range watch. */
export interface RangeWatch {
  /** Resolves after the first scan (changes after it are reported; a failed first scan is retried). */
  ready (): Promise<void>
  /**
   * Resolves once every change up to the bee's current version has been reported (a pass runs
   * now if the watch is behind); at most a few passes, each bounded by the read timeout.
   */
  settled (): Promise<void>
  /** Stops watching; idempotent. */
  close (): Promise<void>
}

/**
 * Watches every key under `prefix` (which must end in '/'), or under any of several prefixes, of
 * a main Hyperbee instance, writer's or reader's: one pass per append for all of them. Appends
 * that land together (a batch, a replicated upgrade) are coalesced into one pass; the callback
 * gets only keys whose bytes changed, in key order, values parsed through the record schemas.
 * Works across core truncation: within one fork it diffs versions, after a fork change
 * (truncate, replicated reorg) it rescans the ranges against what it last reported.
 */
export function watchRange (bee: Hyperbee, prefix: string | readonly string[], onChange: (changes: RangeChange[]) => void, opts: WatchRangeOptions = {}): RangeWatch {
  return new RangeWatcher(bee, prefix, onChange, opts)
}

class RangeWatcher implements RangeWatch {
  private readonly ranges: Array<{ gte: string; lt: string }>
  private known = new Map<string, Uint8Array>()
  private seenFork = -1
  private seenVersion = 0
  private scheduled = false
  private running: Promise<void> | null = null
  private dirty = false
  private closed = false
  private silent: boolean
  private retry: ReturnType<typeof setTimeout> | null = null
  private stream: { destroy (): void } | null = null
  /** A reader's read of the block after the last reported version, started before it exists. */
  private next: { fork: number; index: number; block: Promise<Uint8Array | null> } | null = null
  /** The weak session {@link next} reads through, so that close() can cancel it. */
  private nextSession: Hypercore | null = null
  /** A version reported from a verified upgrade before the core stored it (see {@link onVerified}). */
  private pendingVersion: number | null = null
  private readonly readOpts: { timeout: number }
  private readonly opening: Promise<void>
  private readonly onEvent = (): void => { this.schedule() }
  private readonly onVerified = (index: number, block: Uint8Array, length: number, fork: number): void => {
    queueMicrotask(() => { this.early(index, block, length, fork) })
  }

  constructor (private readonly bee: Hyperbee, prefix: string | readonly string[], private readonly onChange: (changes: RangeChange[]) => void, private readonly opts: WatchRangeOptions) {
    const prefixes = typeof prefix === 'string' ? [prefix] : [...prefix]
    if (prefixes.length === 0) throw CatalogError.invalidArgument('prefix', 'needs at least one prefix')
    this.ranges = prefixes.map(prefixRange)
    this.silent = opts.initial !== true
    this.readOpts = { timeout: opts.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS }
    bee.core.on('append', this.onEvent)
    bee.core.on('truncate', this.onEvent)
    bee.core.on('verified-upgrade', this.onVerified)
    this.opening = this.run()
  }

  ready (): Promise<void> {
    return this.opening
  }

  async settled (): Promise<void> {
    await this.opening
    for (let pass = 0; pass < 4 && !this.closed; pass++) {
      if (this.running !== null) { await this.running; continue }
      if (this.bee.core.fork === this.seenFork && (this.bee.version === this.seenVersion || (this.pendingVersion !== null && this.bee.version < this.seenVersion))) return
      this.dirty = true
      await this.run()
    }
  }

  async close (): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.bee.core.off('append', this.onEvent)
    this.bee.core.off('truncate', this.onEvent)
    this.bee.core.off('verified-upgrade', this.onVerified)
    if (this.retry !== null) clearTimeout(this.retry)
    this.stream?.destroy() // do not wait out a read that is waiting for peers
    await this.opening
    if (this.running !== null) await this.running
    this.next = null
    await this.nextSession?.close().catch(() => {})
    this.nextSession = null
  }

  private schedule (): void {
    if (this.closed) return
    this.dirty = true
    if (this.scheduled || this.running !== null) return
    this.scheduled = true
    // Appends emitted together (a batch, an upgrade) make one pass, which starts before any I/O
    // callback runs (a live edit is reported without a turn of the event loop); what lands while
    // a pass runs is picked up by the pass after it (`dirty`).
    queueMicrotask(() => {
      this.scheduled = false
      if (!this.closed && this.dirty && this.running === null) void this.run()
    })
  }

  private run (): Promise<void> {
    const task = this.loop()
    this.running = task
    return task
  }

  private async loop (): Promise<void> {
    await null // let run() record this task before it can finish
    try {
      while (!this.closed) {
        this.dirty = false
        try {
          await this.sync()
        } catch (err) {
          if (this.closed || this.beeClosing()) return
          this.report(err)
          this.scheduleRetry()
          return
        }
        if (!this.dirty) return
      }
    } finally {
      this.running = null
    }
  }

  private beeClosing (): boolean {
    return Boolean((this.bee as { closing?: unknown }).closing)
  }

  private scheduleRetry (): void {
    if (this.closed || this.retry !== null) return
    this.retry = setTimeout(() => { this.retry = null; this.schedule() }, WATCH_RETRY_MS)
    this.retry.unref?.()
  }

  private async sync (): Promise<void> {
    if (this.beeClosing()) return
    if (!this.bee.opened) await this.bee.ready()
    const core = this.bee.core
    const liveVersion = Math.max(1, core.length) // the bee's version
    if (this.pendingVersion !== null && core.fork === this.seenFork && liveVersion <= this.seenVersion) {
      // Reported from its verified upgrade (early()): nothing new until the core stores more.
      if (liveVersion === this.seenVersion) this.pendingVersion = null
      return
    }
    this.pendingVersion = null
    if (core.fork === this.seenFork && liveVersion > this.seenVersion && liveVersion - this.seenVersion <= WATCH_HISTORY_MAX) {
      await this.replay(core.fork, liveVersion)
      return
    }
    const snap = this.bee.snapshot()
    try {
      await snap.ready()
      const fork = snap.core.fork
      const version = snap.version
      if (fork === this.seenFork && version === this.seenVersion) return
      const raw = fork !== this.seenFork || version < this.seenVersion ? await this.rescan(snap) : await this.diff(snap)
      this.publish(fork, version, raw)
    } finally {
      this.stream = null
      await snap.close()
    }
  }

  /** Records `version` of `fork` as reported and reports `raw` (not the first scan's, unless `initial`). */
  private publish (fork: number, version: number, raw: Array<[string, Uint8Array | null]>): void {
    this.seenFork = fork
    this.seenVersion = version
    this.readAhead(fork, version)
    const silent = this.silent
    this.silent = false
    if (!silent && raw.length > 0 && !this.closed) this.emit(raw)
  }

  /**
   * On a reader, asks for block `index` (the next append) before it exists. Hypercore then
   * resolves that read from the bytes it verified, so the pass of a replicated edit does not wait
   * for a storage read of the block just written (the request for it is the one the upgrade
   * makes anyway: the reader asks for the newest block with every upgrade). A writer's own
   * appends never resolve such a read: not on a writable core.
   */
  private readAhead (fork: number, index: number): void {
    const core = this.bee.core
    if (this.closed || core.writable || this.beeClosing()) return
    if (this.next !== null && this.next.fork === fork && this.next.index === index) return
    try {
      this.nextSession ??= core.session({ weak: true })
    } catch {
      return // the core is closing
    }
    const block = this.nextSession.get(index, { wait: true, timeout: 0 }) as Promise<Uint8Array | null>
    block.catch(() => {}) // cancelled by close(), or the bee closing
    this.next = { fork, index, block }
  }

  /**
   * A few appends since the last reported version on the same fork (the usual live edit): each
   * hyperbee block names the one key it put or deleted, so reading those blocks (the newest one
   * arrives with the upgrade) gives the changes without walking both trees. The blocks are read
   * from the core itself, no snapshot session: below the core's length a block never changes
   * within a fork, and a truncation meanwhile (a fork change) drops this pass for a rescan.
   */
  private async replay (fork: number, version: number): Promise<void> {
    const core = this.bee.core
    const from = Math.max(1, this.seenVersion) // block 0 is the bee's header
    const ahead = this.next !== null && this.next.fork === fork && this.next.index === from ? this.next.block : null
    const reads = Promise.all(Array.from({ length: version - from }, (_, i) => {
      const read = core.get(from + i, this.readOpts)
      // The read started ahead usually holds the block already; the storage read stays the bound
      // (and the answer, should the read ahead fail).
      return i === 0 && ahead !== null ? Promise.race([ahead.then((block) => block ?? read, () => read), read]) : read
    }))
    let blocks: Array<Uint8Array | null>
    try {
      // close() does not wait out a read that is waiting for peers
      blocks = await new Promise((resolve, reject) => {
        this.stream = { destroy: () => reject(CatalogError.closed('reader')) }
        reads.then(resolve, reject)
      })
    } finally {
      this.stream = null
    }
    if (core.fork !== fork) { this.dirty = true; return }
    const latest = new Map<string, Uint8Array | null>()
    for (const block of blocks) {
      if (block === null) throw CatalogError.invalidArgument('block', 'missing below the core length')
      const node = BeeNode.decode(block)
      const key = b4a.toString(node.key, 'utf8')
      // A put always carries bytes in the catalog: a block without a value is a deletion.
      if (this.inRange(key)) latest.set(key, node.value)
    }
    this.publish(fork, version, this.changed(latest))
  }

  /**
   * A reader's live edit, reported as soon as hypercore verified it (our patch of hypercore,
   * 'verified-upgrade': the upgrade's signature and the block's proof hold) rather than once
   * it is stored: the storage write is the last step before the core's `append` (traced: 0.6 ms
   * on a quiet machine). Only the usual case: an upgrade by one block, the one after the last
   * reported version, with no pass under way; anything else waits for `append` as before.
   * The pass that `append` then starts finds nothing new.
   */
  private early (index: number, block: Uint8Array, length: number, fork: number): void {
    if (this.closed || this.running !== null || this.scheduled || this.pendingVersion !== null) return
    if (fork !== this.seenFork || this.seenVersion < 1 || index !== this.seenVersion || length !== index + 1) return
    if (this.bee.core.fork !== fork || this.bee.core.length >= length) return // stored meanwhile: append's pass has it
    let node: { key: Uint8Array; value: Uint8Array | null }
    try {
      node = BeeNode.decode(block)
    } catch {
      return // not a bee node: the usual pass reports (or fails) it
    }
    const key = b4a.toString(node.key, 'utf8')
    const latest = new Map<string, Uint8Array | null>()
    if (this.inRange(key)) latest.set(key, node.value)
    this.pendingVersion = length
    this.publish(fork, length, this.changed(latest))
  }

  /** Changes between the last reported version and `snap`, on the same fork. */
  private async diff (snap: Hyperbee): Promise<Array<[string, Uint8Array | null]>> {
    const latest = new Map<string, Uint8Array | null>()
    for (const range of this.ranges) {
      const stream = this.stream = snap.createDiffStream(this.seenVersion, range, this.readOpts)
      for await (const entry of stream) latest.set(entry.left?.key ?? entry.right?.key, (entry.left?.value as Uint8Array | undefined) ?? null)
    }
    return this.changed(latest)
  }

  /** The keys of `latest` whose bytes differ from the last report, in key order; `known` updated. */
  private changed (latest: Map<string, Uint8Array | null>): Array<[string, Uint8Array | null]> {
    const next = new Map(this.known)
    const out: Array<[string, Uint8Array | null]> = []
    for (const key of [...latest.keys()].sort()) {
      const bytes = latest.get(key)!
      if (sameBytes(next.get(key) ?? null, bytes)) continue
      out.push([key, bytes])
      if (bytes === null) next.delete(key)
      else next.set(key, bytes)
    }
    this.known = next
    return out
  }

  /** Full scan compared with the last reported state (after a fork change or at start). */
  private async rescan (snap: Hyperbee): Promise<Array<[string, Uint8Array | null]>> {
    const next = new Map<string, Uint8Array>()
    for (const range of this.ranges) {
      const stream = this.stream = snap.createReadStream(range, this.readOpts)
      for await (const entry of stream) next.set(entry.key as string, entry.value as Uint8Array)
    }
    const out: Array<[string, Uint8Array | null]> = []
    for (const [key, bytes] of next) if (!sameBytes(this.known.get(key) ?? null, bytes)) out.push([key, bytes])
    for (const key of this.known.keys()) if (!next.has(key)) out.push([key, null])
    out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    this.known = next
    return out
  }

  private inRange (key: string): boolean {
    return this.ranges.some((r) => key >= r.gte && key < r.lt)
  }

  private emit (raw: Array<[string, Uint8Array | null]>): void {
    const changes = raw.map(([key, bytes]) => {
      const value = decodeRecord(key, bytes)
      if (bytes !== null && value === null) this.opts.onInvalid?.(key)
      return { key, value }
    })
    try {
      this.onChange(changes)
    } catch (err) {
      this.report(err)
    }
  }

  private report (err: unknown): void {
    try {
      this.opts.onError?.(err)
    } catch {
      // an onError that throws must not stop the watch
    }
  }
}

function sameBytes (a: Uint8Array | null, b: Uint8Array | null): boolean {
  return a === null || b === null ? a === b : b4a.equals(a, b)
}

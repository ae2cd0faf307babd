import Hyperbee from 'hyperbee'
import type Corestore from 'corestore'
import type Hypercore from 'hypercore'
import { decodeRecord } from './codec.js'
import type { CatalogRecord, RecordFor } from './codec.js'
import { BEE_OPTIONS, DEFAULT_READ_TIMEOUT_MS, DEFAULT_UPDATE_TIMEOUT_MS } from './constants.js'
import { assertPublicKey, catalogCoreKey } from './core-key.js'
import { CatalogError } from './errors.js'
import { PREFIXES, keys, parseKey } from './keys.js'
import { scanPrefix } from './list.js'
import type { CatMetaRecord, VodConfigRecord } from './schema/meta.js'
import type { GroupRecord } from './schema/group.js'
import type { StreamRecord } from './schema/stream.js'
import type { UserRecord } from './schema/user.js'
import { watchRange } from './watch.js'
import type { RangeChange, RangeWatch, WatchRangeOptions } from './watch.js'
import type { CatalogReader, CatalogReaderOptions, CatalogStats, ReaderUpdateOptions, StreamEntry } from './index.js'

/** The longest a read waits for a verified upgrade's storage write (ms); a failed write is retried by hypercore. */
const STORE_WAIT_MS = 2_000

export class CatalogReaderImpl implements CatalogReader {
  readonly panelPublicKey: Uint8Array
  readonly key: Uint8Array
  readonly bee: Hyperbee<Uint8Array>
  private readonly core: Hypercore
  private readonly readTimeoutMs: number
  private readonly watches = new Set<RangeWatch>()
  private invalidRecords = 0
  private verificationErrors = 0
  private closing: Promise<void> | null = null
  private readonly onInvalid = (): void => { this.invalidRecords++ }
  private readonly onVerificationError = (): void => { this.verificationErrors++ }
  /** The newest upgrade hypercore verified and is storing ('verified-upgrade'), until stored. */
  private storing: { length: number; fork: number } | null = null
  private readonly onVerifiedUpgrade = (_index: number, _block: Uint8Array, length: number, fork: number): void => {
    if (this.storing === null || fork !== this.storing.fork || length > this.storing.length) this.storing = { length, fork }
  }

  constructor ({ store, panelPublicKey, readTimeoutMs = DEFAULT_READ_TIMEOUT_MS }: CatalogReaderOptions) {
    if (store === null || typeof store !== 'object' || typeof (store as Corestore).get !== 'function') throw CatalogError.invalidArgument('store', 'must be a Corestore')
    assertPublicKey(panelPublicKey)
    if (!Number.isInteger(readTimeoutMs) || readTimeoutMs < 1) throw CatalogError.invalidArgument('readTimeoutMs', 'must be a positive integer')
    this.panelPublicKey = panelPublicKey
    this.readTimeoutMs = readTimeoutMs
    // Only the key derived from the panel public key: hypercore accepts a block only when the
    // tree signature verifies against the manifest's signer, the panel key.
    this.key = catalogCoreKey(panelPublicKey)
    // allowLatestBlock: an upgrade request (sent as soon as the panel announces a new length)
    // asks for the newest block in the same message, so a live edit arrives with the block the
    // watch reads: one round trip, not two (docs/architecture.md "Edit propagation"; the
    // hypercore patch guards the local resolve this keeps in flight).
    this.core = store.get({ key: this.key, timeout: readTimeoutMs, allowLatestBlock: true })
    this.core.on('verification-error', this.onVerificationError)
    this.core.on('verified-upgrade', this.onVerifiedUpgrade)
    this.bee = new Hyperbee<Uint8Array>(this.core, BEE_OPTIONS)
  }

  get version (): number {
    return this.bee.version
  }

  async ready (): Promise<void> {
    if (this.closing !== null) throw CatalogError.closed('reader')
    await this.bee.ready()
  }

  close (): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.watches].map((w) => w.close()))
      this.core.off('verification-error', this.onVerificationError)
      this.core.off('verified-upgrade', this.onVerifiedUpgrade)
      await this.bee.close()
    })()
    return this.closing
  }

  stats (): CatalogStats & { verificationErrors: number } {
    return {
      length: this.core.length,
      byteLength: this.core.byteLength,
      fork: this.core.fork,
      version: this.bee.version,
      invalidRecords: this.invalidRecords,
      verificationErrors: this.verificationErrors
    }
  }

  async update (opts: ReaderUpdateOptions = {}): Promise<boolean> {
    await this.ready()
    if (opts.wait !== true) return this.core.update()
    const timeoutMs = opts.timeoutMs ?? DEFAULT_UPDATE_TIMEOUT_MS
    if (!Number.isInteger(timeoutMs) || timeoutMs < 0) throw CatalogError.invalidArgument('timeoutMs', 'must be a non-negative integer')
    let timer: ReturnType<typeof setTimeout> | undefined
    let onPeer = (): void => {}
    const timeout = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs) })
    try {
      // With no peer yet, hypercore answers a waiting update with false at once; wait for
      // one first (a swarm may still be connecting), within the same bound.
      if (this.core.peers.length === 0) {
        const peer = new Promise<true>((resolve) => { onPeer = () => resolve(true) })
        this.core.on('peer-add', onPeer)
        if (!(await Promise.race([peer, timeout]))) return false
      }
      return await Promise.race([this.core.update({ wait: true }), timeout])
    } finally {
      clearTimeout(timer)
      this.core.off('peer-add', onPeer)
    }
  }

  /**
   * A watch reports a live edit once hypercore verified it, before it is stored (watch.ts); a
   * read waits out that storage write (bounded), so what a watch reported, the reads return.
   */
  private async stored (): Promise<void> {
    const s = this.storing
    if (s === null) return
    const done = (): boolean => this.core.fork !== s.fork || this.core.length >= s.length || this.closing !== null
    if (!done()) {
      await new Promise<void>((resolve) => {
        const check = (): void => { if (done()) finish() }
        const finish = (): void => {
          clearTimeout(timer)
          this.core.off('append', check)
          this.core.off('truncate', check)
          resolve()
        }
        const timer = setTimeout(finish, STORE_WAIT_MS)
        this.core.on('append', check)
        this.core.on('truncate', check)
      })
    }
    if (this.storing === s) this.storing = null
  }

  private async read<K extends string> (key: K): Promise<RecordFor<K> | null> {
    await this.ready()
    await this.stored()
    let entry
    try {
      entry = await this.bee.get(key)
    } catch (err) {
      if (this.closing !== null) throw CatalogError.closed('reader')
      if ((err as { code?: string }).code === 'REQUEST_TIMEOUT') throw CatalogError.readTimeout(key, err)
      throw err
    }
    if (entry === null) return null
    const record = decodeRecord(key, entry.value)
    if (record === null) this.invalidRecords++
    return record as RecordFor<K> | null
  }

  /** Reads `key` when it is well-formed; an id that cannot exist is simply absent. */
  private readName<K extends string> (build: () => K): Promise<RecordFor<K> | null> {
    let key: K
    try {
      key = build()
    } catch {
      return this.ready().then(() => null)
    }
    return this.read(key)
  }

  get<K extends string> (key: K): Promise<RecordFor<K> | null> {
    return this.readName(() => { parseKey(key); return key })
  }

  getStream (id: string): Promise<StreamRecord | null> { return this.readName(() => keys.stream(id)) }
  getUser (username: string): Promise<UserRecord | null> { return this.readName(() => keys.user(username)) }
  getCatMeta (slug: string): Promise<CatMetaRecord | null> { return this.readName(() => keys.catMeta(slug)) }
  /** A grant group (`grp/<id>`): the channel keys sealed under the group's key. */
  getGroup (id: string): Promise<GroupRecord | null> { return this.readName(() => keys.group(id)) }
  getVodConfig (): Promise<VodConfigRecord | null> { return this.read(keys.vodConfig()) }
  getMeta<N extends string> (name: N): Promise<RecordFor<`meta/${N}`> | null> {
    return this.readName(() => keys.meta(name) as `meta/${N}`)
  }

  async listStreams (): Promise<StreamEntry[]> {
    const entries = await this.scan<StreamRecord>(PREFIXES.stream)
    return entries.map((e) => ({ id: e.name, record: e.record }))
  }

  async listCatMeta (): Promise<CatMetaRecord[]> {
    return (await this.scan<CatMetaRecord>(PREFIXES.catMeta)).map((e) => e.record)
  }

  private async scan<T extends CatalogRecord> (prefix: string): Promise<Array<{ name: string; record: T }>> {
    await this.ready()
    await this.stored()
    try {
      return await scanPrefix<T>(this.bee, prefix, this.onInvalid, { timeout: this.readTimeoutMs })
    } catch (err) {
      if ((err as { code?: string }).code === 'REQUEST_TIMEOUT') throw CatalogError.readTimeout(prefix, err)
      throw err
    }
  }

  watch (prefix: string | readonly string[], onChange: (changes: RangeChange[]) => void, opts?: WatchRangeOptions): RangeWatch {
    if (this.closing !== null) throw CatalogError.closed('reader')
    const watch = watchRange(this.bee, prefix, onChange, { onInvalid: this.onInvalid, readTimeoutMs: this.readTimeoutMs, ...opts })
    this.watches.add(watch)
    return { ready: () => watch.ready(), settled: () => watch.settled(), close: async () => { this.watches.delete(watch); await watch.close() } }
  }
}

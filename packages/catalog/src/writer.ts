import b4a from 'b4a'
import Hyperbee from 'hyperbee'
import type Corestore from 'corestore'
import { decodeRecord, encodeRecord } from './codec.js'
import type { RecordFor } from './codec.js'
import { assertKeyPair, assertPublicKey, catalogCoreKey, catalogManifest } from './core-key.js'
import type { PanelKeyPair } from './core-key.js'
import { BEE_OPTIONS } from './constants.js'
import { CatalogError } from './errors.js'
import { PREFIXES, keys, parseKey } from './keys.js'
import { listUserPage, scanPrefix } from './list.js'
import type { ListUsersOptions, UserPage } from './list.js'
import { WriteLocks } from './locks.js'
import type { CatMetaRecord, VodConfigRecord } from './schema/meta.js'
import type { GroupRecord } from './schema/group.js'
import type { StreamRecord } from './schema/stream.js'
import type { UserRecord } from './schema/user.js'
import { readInPlace } from './read-in-place.js'
import { cacheNewestRoot } from './root-cache.js'
import { watchRange } from './watch.js'
import type { RangeChange, RangeWatch, WatchRangeOptions } from './watch.js'
import { runBatch } from './writer-batch.js'
import type {
  CatalogBatch, CatalogStats, CatalogWriter, CatalogWriterOptions, PutResult, StreamEntry, UpdateFn, UpdateResult
} from './index.js'

export class CatalogWriterImpl implements CatalogWriter {
  private readonly store: Corestore
  private readonly keyPairInput: unknown
  private readonly locks = new WriteLocks()
  private readonly watches = new Set<RangeWatch>()
  private _bee: Hyperbee<Uint8Array> | null = null
  private opening: Promise<void> | null = null
  private closing: Promise<void> | null = null
  private stopCaching: () => void = () => {}
  private invalidRecords = 0
  private readonly onInvalid = (): void => { this.invalidRecords++ }
  readonly panelPublicKey: Uint8Array
  readonly key: Uint8Array

  constructor ({ store, keyPair }: CatalogWriterOptions) {
    if (store === null || typeof store !== 'object' || typeof store.get !== 'function') throw CatalogError.invalidArgument('store', 'must be a Corestore')
    assertPublicKey((keyPair as Partial<PanelKeyPair> | undefined)?.publicKey)
    this.store = store
    this.keyPairInput = keyPair
    this.panelPublicKey = keyPair.publicKey
    this.key = catalogCoreKey(keyPair.publicKey)
  }

  get bee (): Hyperbee<Uint8Array> {
    if (this._bee === null) throw CatalogError.invalidArgument('bee', 'call ready() first')
    return this._bee
  }

  ready (): Promise<void> {
    if (this.closing !== null) return Promise.reject(CatalogError.closed('writer'))
    this.opening ??= this.open()
    return this.opening
  }

  private async open (): Promise<void> {
    const keyPair = await assertKeyPair(this.keyPairInput)
    // Opened only after the keypair check, so a mismatched secret never reaches storage.
    const core = this.store.get({ keyPair, manifest: catalogManifest(keyPair.publicKey) })
    const bee = new Hyperbee<Uint8Array>(core, BEE_OPTIONS)
    try {
      await bee.ready()
      if (!core.writable || core.key === null || !b4a.equals(core.key, this.key)) throw CatalogError.notWritable()
    } catch (err) {
      await bee.close().catch(() => {})
      throw err
    }
    this._bee = bee
    this.stopCaching = cacheNewestRoot(bee)
  }

  close (): Promise<void> {
    this.closing ??= (async () => {
      await this.opening?.catch(() => {})
      this.stopCaching()
      await Promise.all([...this.watches].map((w) => w.close()))
      await this.locks.exclusive(async () => { await this._bee?.close() }) // after in-flight writes
    })()
    return this.closing
  }

  private async use (): Promise<Hyperbee<Uint8Array>> {
    if (this.closing !== null) throw CatalogError.closed('writer')
    await this.ready()
    return this.bee
  }

  stats (): CatalogStats {
    const core = this.bee.core
    return { length: core.length, byteLength: core.byteLength, fork: core.fork, version: this.bee.version, invalidRecords: this.invalidRecords }
  }

  async get<K extends string> (key: K): Promise<RecordFor<K> | null> {
    parseKey(key)
    const entry = await latest(await this.use(), key)
    if (entry === null) return null
    const record = decodeRecord(key, entry.value)
    if (record === null) throw CatalogError.storedInvalid(key)
    return record as RecordFor<K>
  }

  async put<K extends string> (key: K, record: RecordFor<K>): Promise<PutResult> {
    const bee = await this.use()
    const { bytes } = encodeRecord(key, record) // refuse before taking any lock
    return announced(await this.locks.withKey(key, async () => ({ changed: await putIfChanged(bee, key, bytes) })))
  }

  async del (key: string): Promise<PutResult> {
    parseKey(key)
    const bee = await this.use()
    return announced(await this.locks.withKey(key, async () => {
      if ((await latest(bee, key)) === null) return { changed: false }
      await bee.del(key)
      return { changed: true }
    }))
  }

  async update<K extends string> (key: K, fn: UpdateFn<RecordFor<K>>): Promise<UpdateResult<RecordFor<K>>> {
    parseKey(key)
    const bee = await this.use()
    return announced(await this.locks.withKey(key, async (): Promise<UpdateResult<RecordFor<K>>> => {
      const entry = await latest(bee, key)
      const current = entry === null ? null : decodeRecord(key, entry.value) as RecordFor<K> | null
      if (entry !== null && current === null) throw CatalogError.storedInvalid(key)
      const next = await fn(current)
      if (next === undefined) return { changed: false, record: current }
      if (next === null) {
        if (entry === null) return { changed: false, record: null }
        await bee.del(key)
        return { changed: true, record: null }
      }
      const { record, bytes } = encodeRecord(key, next)
      // The entry read above is current: the key's lock is held.
      if (entry !== null && b4a.equals(entry.value, bytes)) return { changed: false, record: record as RecordFor<K> }
      await bee.put(key, bytes)
      return { changed: true, record: record as RecordFor<K> }
    }))
  }

  async batch (fn: (b: CatalogBatch) => Promise<void> | void): Promise<{ changed: number }> {
    const bee = await this.use()
    const result = await this.locks.exclusive(() => runBatch(bee, fn))
    return announced(result, result.changed > 0)
  }

  watch (prefix: string | readonly string[], onChange: (changes: RangeChange[]) => void, opts?: WatchRangeOptions): RangeWatch {
    if (this.closing !== null) throw CatalogError.closed('writer')
    const watch = watchRange(this.bee, prefix, onChange, { onInvalid: this.onInvalid, ...opts })
    this.watches.add(watch)
    return { ready: () => watch.ready(), settled: () => watch.settled(), close: async () => { this.watches.delete(watch); await watch.close() } }
  }

  offerPath (key: string, remotePublicKey: Uint8Array): boolean {
    parseKey(key)
    const bee = this._bee
    const extension = bee?.extension as { onget?: (message: { version: number; key: string }, peer: unknown) => void } | null | undefined
    if (bee == null || this.closing !== null || typeof extension?.onget !== 'function') return false
    const peer = bee.core.peers.find((p: { remotePublicKey?: Uint8Array }) => p.remotePublicKey !== undefined && b4a.equals(p.remotePublicKey, remotePublicKey))
    if (peer === undefined) return false
    // The same walk the extension does for a reader's own request (no waiting, local blocks
    // only), answered to this one peer with the list of block indexes.
    extension.onget({ version: bee.version, key }, peer)
    return true
  }

  // Typed conveniences.
  async getStream (id: string): Promise<StreamRecord | null> { return this.get(keys.stream(id)) }
  async putStream (id: string, record: StreamRecord): Promise<PutResult> { return this.put(keys.stream(id), record) }
  async deleteStream (id: string): Promise<PutResult> { return this.del(keys.stream(id)) }
  async updateStream (id: string, fn: UpdateFn<StreamRecord>): Promise<UpdateResult<StreamRecord>> { return this.update(keys.stream(id), fn) }
  async listStreams (): Promise<StreamEntry[]> {
    const entries = await scanPrefix<StreamRecord>(await this.use(), PREFIXES.stream, this.onInvalid)
    return entries.map((e) => ({ id: e.name, record: e.record }))
  }

  async getUser (username: string): Promise<UserRecord | null> { return this.get(keys.user(username)) }
  async putUser (username: string, record: UserRecord): Promise<PutResult> { return this.put(keys.user(username), record) }
  async deleteUser (username: string): Promise<PutResult> { return this.del(keys.user(username)) }
  async updateUser (username: string, fn: UpdateFn<UserRecord>): Promise<UpdateResult<UserRecord>> { return this.update(keys.user(username), fn) }
  async listUsers (opts: ListUsersOptions = {}): Promise<UserPage> { return listUserPage(await this.use(), opts, this.onInvalid) }

  async getGroup (id: string): Promise<GroupRecord | null> { return this.get(keys.group(id)) }
  async putGroup (id: string, record: GroupRecord): Promise<PutResult> { return this.put(keys.group(id), record) }
  async deleteGroup (id: string): Promise<PutResult> { return this.del(keys.group(id)) }
  async getCatMeta (slug: string): Promise<CatMetaRecord | null> { return this.get(keys.catMeta(slug)) }
  async putCatMeta (record: CatMetaRecord): Promise<PutResult> { return this.put(keys.catMeta(record?.slug), record) }
  async deleteCatMeta (slug: string): Promise<PutResult> { return this.del(keys.catMeta(slug)) }
  async listCatMeta (): Promise<CatMetaRecord[]> {
    return (await scanPrefix<CatMetaRecord>(await this.use(), PREFIXES.catMeta, this.onInvalid)).map((e) => e.record)
  }

  async getVodConfig (): Promise<VodConfigRecord | null> { return this.get(keys.vodConfig()) }
  async putVodConfig (record: VodConfigRecord | null): Promise<PutResult> {
    return record === null ? this.del(keys.vodConfig()) : this.put(keys.vodConfig(), record)
  }

  async getMeta<N extends string> (name: N): Promise<RecordFor<`meta/${N}`> | null> { return this.get(keys.meta(name) as `meta/${N}`) }
  async putMeta<N extends string> (name: N, record: RecordFor<`meta/${N}`>): Promise<PutResult> { return this.put(keys.meta(name) as `meta/${N}`, record) }
}

/**
 * Resolves with `result` once the event loop has polled its sockets, when something was appended.
 * An append queues its announcements to the readers (hypercore's range and sync) on UDX streams,
 * which send when the loop next polls; a caller that goes on working in the same turn (the
 * admin API's answer: the activity log, the reply's serialization) would hold them back. Two
 * check-phase hops put one poll phase between the append and the caller.
 */
async function announced<T extends { changed: boolean | number }> (result: T, appended = result.changed === true): Promise<T> {
  if (appended) await new Promise<void>((resolve) => { setImmediate(() => { setImmediate(resolve) }) })
  return result
}

async function putIfChanged (bee: Hyperbee<Uint8Array>, key: string, bytes: Uint8Array): Promise<boolean> {
  const current = await latest(bee, key)
  if (current !== null && b4a.equals(current.value, bytes)) return false
  await bee.put(key, bytes)
  return true
}

/** The key's newest entry, read in place (no snapshot session; see read-in-place.ts). */
function latest (bee: Hyperbee<Uint8Array>, key: string): Promise<{ value: Uint8Array } | null> {
  return readInPlace(bee, async (batch) => await batch.get(key) as { value: Uint8Array } | null)
}

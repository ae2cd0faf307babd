/**
 * `@arus/catalog` — the signed catalog: record schemas (zod), the key layout, the panel's
 * single writer and the viewers' verified reader of the catalog Hyperbee, and a range watch.
 *
 * The catalog is a Hyperbee whose core is signed by the panel's Ed25519 identity key; its
 * core key is derived from the panel public key ({@link catalogCoreKey}), so a reader that
 * knows only the panel public key accepts nothing the panel did not sign. The bee is
 * append-only and never compacted: the writer compares canonical bytes and writes nothing
 * when a record is unchanged.
 *
 * Spec: /work/shared/spec/1-panel.md "Catalog record", "User record", "Other replicated and
 * private data", "Limits"; /work/shared/ARCHITECTURE.md "Panel identity and catalog".
 * @packageDocumentation
 */
import type Corestore from 'corestore'
import type Hyperbee from 'hyperbee'
import type { RecordFor } from './codec.js'
import type { PanelKeyPair } from './core-key.js'
import type { ListUsersOptions, UserPage } from './list.js'
import type { CatMetaRecord, VodConfigRecord } from './schema/meta.js'
import type { StreamRecord } from './schema/stream.js'
import type { UserRecord } from './schema/user.js'
import type { GroupRecord as GroupRecordType } from './schema/group.js'
import type { RangeChange, RangeWatch, WatchRangeOptions } from './watch.js'
import { CatalogReaderImpl } from './reader.js'
import { CatalogWriterImpl } from './writer.js'

export { CatalogError, CATALOG_ERROR_CODES } from './errors.js'
export type { CatalogErrorCode } from './errors.js'
export * from './constants.js'
export { keys, parseKey, prefixRange, PREFIXES, VOD_CONFIG_KEY, PANEL_META_KEY } from './keys.js'
export type { CatalogPrefix, KeyRange, ParsedKey } from './keys.js'
export { canonicalJson } from './canonical.js'
export { encodeRecord, decodeRecord } from './codec.js'
export type { CatalogRecord, RecordFor } from './codec.js'
export { catalogCoreKey, catalogManifest } from './core-key.js'
export type { PanelKeyPair } from './core-key.js'
export { StreamId, Username, Slug, slugify } from './schema/ids.js'
export { HttpsUrl, ArtRef } from './schema/common.js'
export { StreamRecord, sourceStreamId } from './schema/stream.js'
export type { LiveStreamRecord, VodStreamRecord } from './schema/stream.js'
export { UserRecord } from './schema/user.js'
export { GroupRecord, GroupId, GROUP_ID_PATTERN, GROUP_CHANNEL_KEY_BYTES } from './schema/group.js'
export type { UserDevice } from './schema/user.js'
export { CatMetaRecord, VodConfigRecord, PanelMetaRecord } from './schema/meta.js'
export { presentCategories, railOf } from './presentation.js'
export type { Presentation, Rail } from './presentation.js'
export { watchRange } from './watch.js'
export type { RangeChange, RangeWatch, WatchRangeOptions } from './watch.js'
export type { ListUsersOptions, UserPage } from './list.js'

/** Result of a single-key write: `changed` is false when nothing was appended. */
export interface PutResult { changed: boolean }

/** Result of an update: whether a block was appended, and the record now stored (null: absent). */
export interface UpdateResult<T> { changed: boolean; record: T | null }

/**
 * An update function: gets the current record (null when absent) and returns the new one,
 * `null` to delete, or `undefined` to leave it as is. It may be async. It must not call the
 * writer for the same key (the key is locked while it runs).
 */
export type UpdateFn<T> = (current: T | null) => T | null | undefined | Promise<T | null | undefined>

/** A stream record with its id. */
export interface StreamEntry { id: string; record: StreamRecord }

/** Size and position of the catalog core. */
export interface CatalogStats {
  /** Blocks in the core (`core.length`). */
  length: number
  /** Bytes in the core (`core.byteLength`). */
  byteLength: number
  /** Fork id; bumps on every truncation. */
  fork: number
  /** Bee version (max(1, length)). */
  version: number
  /** Stored values met so far that failed their schema (skipped in lists, null in reads). */
  invalidRecords: number
}

/**
 * Operations inside {@link CatalogWriter.batch}: the same compare-before-write rules, seen
 * against the batch's own pending writes; everything is appended atomically at the end.
 */
export interface CatalogBatch {
  get<K extends string>(key: K): Promise<RecordFor<K> | null>
  /** Validates and stages a put; resolves false (nothing staged) when the bytes are unchanged. */
  put<K extends string>(key: K, record: RecordFor<K>): Promise<boolean>
  /** Stages a delete; resolves false when the key is absent. */
  del(key: string): Promise<boolean>
  update<K extends string>(key: K, fn: UpdateFn<RecordFor<K>>): Promise<UpdateResult<RecordFor<K>>>
}

/** What {@link createCatalogWriter} needs. */
export interface CatalogWriterOptions {
  /** The panel's Corestore (the caller owns it and closes it after the writer). */
  store: Corestore
  /** The panel identity keypair (libsodium layout: secretKey = seed ‖ publicKey, 64 bytes). */
  keyPair: PanelKeyPair
}

/** The panel's single writer of the catalog. Every write validates strictly and skips unchanged bytes. */
export interface CatalogWriter {
  /** Panel public key; the catalog core key is derived from it. */
  readonly panelPublicKey: Uint8Array
  /** The catalog core key ({@link catalogCoreKey} of the panel key). */
  readonly key: Uint8Array
  /** The underlying bee (after ready()), e.g. for {@link watchRange}. */
  readonly bee: Hyperbee<Uint8Array>
  /** Checks the keypair and opens the core; idempotent. */
  ready(): Promise<void>
  /** Waits for in-flight writes, closes watches and the bee; idempotent. */
  close(): Promise<void>
  stats(): CatalogStats
  get<K extends string>(key: K): Promise<RecordFor<K> | null>
  put<K extends string>(key: K, record: RecordFor<K>): Promise<PutResult>
  del(key: string): Promise<PutResult>
  update<K extends string>(key: K, fn: UpdateFn<RecordFor<K>>): Promise<UpdateResult<RecordFor<K>>>
  /** Runs `fn` with every key locked and appends its writes atomically (nothing if unchanged). */
  batch(fn: (b: CatalogBatch) => Promise<void> | void): Promise<{ changed: number }>
  watch(prefix: string | readonly string[], onChange: (changes: RangeChange[]) => void, opts?: WatchRangeOptions): RangeWatch
  /**
   * Tells one replicating peer (by its Noise public key) which blocks a lookup of `key` reads,
   * so its replica fetches them before it looks (hyperbee's own cache hint, the message a
   * reader's lookup sends when it would wait). False when that peer has no catalog channel.
   */
  offerPath(key: string, remotePublicKey: Uint8Array): boolean
  getStream(id: string): Promise<StreamRecord | null>
  putStream(id: string, record: StreamRecord): Promise<PutResult>
  deleteStream(id: string): Promise<PutResult>
  updateStream(id: string, fn: UpdateFn<StreamRecord>): Promise<UpdateResult<StreamRecord>>
  listStreams(): Promise<StreamEntry[]>
  getUser(username: string): Promise<UserRecord | null>
  putUser(username: string, record: UserRecord): Promise<PutResult>
  deleteUser(username: string): Promise<PutResult>
  updateUser(username: string, fn: UpdateFn<UserRecord>): Promise<UpdateResult<UserRecord>>
  listUsers(opts?: ListUsersOptions): Promise<UserPage>
  getCatMeta(slug: string): Promise<CatMetaRecord | null>
  /** A grant group (`grp/<id>`): a package's channel keys sealed under its group key (issue 43). */
  getGroup(id: string): Promise<GroupRecordType | null>
  putGroup(id: string, record: GroupRecordType): Promise<PutResult>
  deleteGroup(id: string): Promise<PutResult>
  /** Stores under `catmeta/<record.slug>`. */
  putCatMeta(record: CatMetaRecord): Promise<PutResult>
  deleteCatMeta(slug: string): Promise<PutResult>
  listCatMeta(): Promise<CatMetaRecord[]>
  getVodConfig(): Promise<VodConfigRecord | null>
  /** null deletes the record (the provider is then unconfigured). */
  putVodConfig(record: VodConfigRecord | null): Promise<PutResult>
  getMeta<N extends string>(name: N): Promise<RecordFor<`meta/${N}`> | null>
  putMeta<N extends string>(name: N, record: RecordFor<`meta/${N}`>): Promise<PutResult>
}

/**
 * Creates the panel's catalog writer. Call `ready()` (or any method) to open it: it checks
 * that the secret key belongs to the public key, then opens the core with that keypair.
 * Throws CATALOG_INVALID_KEYPAIR / CATALOG_INVALID_ARGUMENT synchronously on malformed input.
 */
export function createCatalogWriter (opts: CatalogWriterOptions): CatalogWriter {
  return new CatalogWriterImpl(opts)
}

/** What {@link openCatalogReader} needs. */
export interface CatalogReaderOptions {
  /** The viewer's (or broadcaster's) Corestore, replicated with the panel by the caller. */
  store: Corestore
  /** The panel public key (32 bytes); the only trust anchor. */
  panelPublicKey: Uint8Array
  /** How long a read waits for missing blocks from peers. Default 10000. */
  readTimeoutMs?: number
}

/** Options of {@link CatalogReader.update}. */
export interface ReaderUpdateOptions {
  /** Wait for a peer to announce a newer length. Default false. */
  wait?: boolean
  /** Bound of a waiting update; resolves false when it passes. Default 10000. */
  timeoutMs?: number
}

/**
 * A verified, read-only view of a panel's catalog. Every value goes through the record
 * schemas: a value that fails is returned as null / skipped and counted, never thrown.
 */
export interface CatalogReader {
  readonly panelPublicKey: Uint8Array
  readonly key: Uint8Array
  readonly bee: Hyperbee<Uint8Array>
  /** Current bee version. */
  readonly version: number
  ready(): Promise<void>
  close(): Promise<void>
  /** Fetches the latest length; with `wait`, waits (bounded) for a peer. Resolves true when it grew or forked. */
  update(opts?: ReaderUpdateOptions): Promise<boolean>
  stats(): CatalogStats & { verificationErrors: number }
  get<K extends string>(key: K): Promise<RecordFor<K> | null>
  getStream(id: string): Promise<StreamRecord | null>
  listStreams(): Promise<StreamEntry[]>
  getUser(username: string): Promise<UserRecord | null>
  getCatMeta(slug: string): Promise<CatMetaRecord | null>
  /** A grant group (`grp/<id>`): a package's channel keys sealed under its group key (issue 43). */
  getGroup(id: string): Promise<GroupRecordType | null>
  listCatMeta(): Promise<CatMetaRecord[]>
  getVodConfig(): Promise<VodConfigRecord | null>
  getMeta<N extends string>(name: N): Promise<RecordFor<`meta/${N}`> | null>
  /** Watches the keys under `prefix` (or under each of several prefixes, in one pass per append). */
  watch(prefix: string | readonly string[], onChange: (changes: RangeChange[]) => void, opts?: WatchRangeOptions): RangeWatch
}

/**
 * Opens a panel's catalog by its public key only. Replication is the caller's job
 * (`store.replicate(connection)`); reads of blocks not yet local wait up to `readTimeoutMs`
 * and then throw CATALOG_READ_TIMEOUT.
 */
export function openCatalogReader (opts: CatalogReaderOptions): CatalogReader {
  return new CatalogReaderImpl(opts)
}

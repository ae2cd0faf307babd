import type Hyperdrive from 'hyperdrive'
import { reannounce } from './announce.js'
import { BeeCollector } from './bee-gc.js'
import { COMPACT_AFTER_BYTES, WRITE_OVERHEAD_BYTES } from './constants.js'

/**
 * Live retention (keep 'window'): what keeps a live feed O(window) on disk.
 *
 * - Expired segments: `drive.clear(path)` (hypercore deletes the blocks and the Merkle
 *   nodes only they needed), then `drive.del(path)`.
 * - Superseded playlists: the blob of the playlist replaced one update ago is cleared, so
 *   a reader that fetched the previous entry can still read it for one segment period.
 * - Drive metadata: the Hyperbee is append-only (three nodes per segment: put, playlist,
 *   del); {@link BeeCollector} clears the blocks no tree of the last two updates reaches.
 *   This needs the workspace's hypercore patch (patches/hypercore@11.37.1.patch): unpatched,
 *   clearing a block whose LEFT sibling subtree is retained deletes Merkle nodes that
 *   proofs still need, and the origin fails every new reader (test/cold-join.test.ts).
 * - RocksDB: a cleared range is only a tombstone until compaction. After
 *   COMPACT_AFTER_BYTES of writes both cores' key ranges are compacted (hypercore
 *   `core.compact()` = RocksDB CompactRange, which flushes the memtable first, drops the
 *   deleted values and lets blob garbage collection delete the dead blob files).
 */
export class Retention {
  private pressure = 0
  private stalePlaylist: Hyperdrive.BlobRef | null = null
  private readonly bee: BeeCollector
  // Lowest block cleared since the last reannounce(), per core (Infinity: none).
  private lowestBlob = Infinity
  private lowestBee = Infinity

  constructor (private readonly drive: Hyperdrive) {
    this.bee = new BeeCollector(drive.db, drive.core)
  }

  /** Accounts a write of `bytes` toward the next compaction. */
  wrote (bytes: number): void {
    this.pressure += bytes + WRITE_OVERHEAD_BYTES
  }

  /** Clears a segment's blocks, then deletes its entry. */
  async expire (path: string): Promise<void> {
    const entry = await this.drive.entry(path)
    if (entry?.value.blob) this.lowestBlob = Math.min(this.lowestBlob, entry.value.blob.blockOffset)
    await this.drive.clear(path)
    await this.drive.del(path)
    this.pressure += 2 * WRITE_OVERHEAD_BYTES
  }

  /** Clears the blocks of a blob that no entry refers to any more. */
  async clearBlob (blob: Hyperdrive.BlobRef): Promise<void> {
    const blobs = await this.drive.getBlobs()
    if (blobs === null) return
    await blobs.clear(blob)
    this.lowestBlob = Math.min(this.lowestBlob, blob.blockOffset)
    this.pressure += WRITE_OVERHEAD_BYTES
  }

  /** Tells peers what is still here above the blocks cleared since the last call. */
  async settle (): Promise<void> {
    const blobs = await this.drive.getBlobs()
    if (blobs !== null && this.lowestBlob !== Infinity) await reannounce(blobs.core, this.lowestBlob)
    if (this.lowestBee !== Infinity) await reannounce(this.drive.core, this.lowestBee)
    this.lowestBlob = Infinity
    this.lowestBee = Infinity
  }

  /** Runs after each written playlist; `previous` is the blob of the playlist it replaced. */
  async afterPlaylist (previous: Hyperdrive.BlobRef | null): Promise<void> {
    if (this.stalePlaylist !== null) await this.clearBlob(this.stalePlaylist)
    this.stalePlaylist = previous

    const doomed = await this.bee.collect()
    if (doomed.length > 0) this.lowestBee = Math.min(this.lowestBee, doomed[0] as number)
    this.pressure += doomed.length * WRITE_OVERHEAD_BYTES
    await this.settle()

    if (this.pressure >= COMPACT_AFTER_BYTES) await this.compact()
  }

  /** Compacts the metadata and blob cores' ranges in RocksDB. */
  async compact (): Promise<void> {
    this.pressure = 0
    const blobs = await this.drive.getBlobs()
    if (blobs !== null) await blobs.core.compact()
    await this.drive.core.compact()
  }
}

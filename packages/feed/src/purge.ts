import type Corestore from 'corestore'
import Hyperdrive from 'hyperdrive'

/**
 * Reclaims a retired generation's disk: every block of its metadata and blob cores is cleared
 * and their RocksDB ranges compacted (the Merkle tree, a few KiB, stays). Hyperdrive's own
 * purge() cannot be used: hypercore 11.37.1's Hypercore#purge calls a method it lacks.
 */
export async function purgeFeed (store: Corestore, feedKey: string, key: string): Promise<void> {
  const drive = new Hyperdrive(store, Buffer.from(feedKey, 'hex'), { encryptionKey: Buffer.from(key, 'hex') })
  try {
    await drive.ready()
    const blobs = await drive.getBlobs()
    for (const core of [drive.core, blobs?.core]) {
      if (!core || core.length === 0) continue
      await core.clear(0, core.length)
      await core.compact()
    }
  } finally {
    await drive.close()
  }
}

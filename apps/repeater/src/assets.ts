import type Corestore from 'corestore'
import Hyperdrive from 'hyperdrive'
import { PANEL_META_KEY, type CatalogReader, type RangeWatch } from '@arus/catalog'
import type { Logger } from '@arus/service'
import { CoreMirror } from './core-mirror.js'

/**
 * The optional `ASSETS` role: the panel's art drive (its key is in the public `meta/panel`
 * record) mirrored whole — both cores, kept as they grow — so viewers connected to the repeater
 * fetch posters and logos from it. Art is public (the drive is not encrypted); it is not
 * counted in MAX_DISK_MB (a panel's art is megabytes).
 */
export class AssetsMirror {
  private watch: RangeWatch | null = null
  private key: string | null = null
  private cores: CoreMirror[] = []
  private drive: Hyperdrive | null = null
  private queue: Promise<void> = Promise.resolve()
  private closed = false

  constructor (private readonly store: Corestore, private readonly catalog: CatalogReader, private readonly log: Logger) {}

  start (): void {
    this.watch = this.catalog.watch('meta/', (changes) => {
      const meta = changes.find((c) => c.key === PANEL_META_KEY)
      if (meta === undefined) return
      const key = (meta.value as { assetsKey?: string | null } | null)?.assetsKey ?? null
      this.queue = this.queue.then(() => this.follow(key)).catch((err: Error) => this.log.warn({ event: 'assets.mirror', err: err.message }, 'art drive mirror failed; the next catalog update retries'))
    }, { initial: true })
  }

  private async follow (key: string | null): Promise<void> {
    if (this.closed || key === this.key) return
    await this.release()
    this.key = key
    if (key === null) return
    const drive = new Hyperdrive(this.store.session(), Buffer.from(key, 'hex'))
    this.drive = drive
    await drive.ready()
    const db = new CoreMirror({ store: this.store, key: drive.core.key!, mode: 'all', retentionMs: 0 })
    await db.ready()
    this.cores = [db]
    // The blob core's key is in the drive's header: known once the first block arrived.
    const blobs = await drive.getBlobs()
    if (this.closed || blobs === null) return
    const blob = new CoreMirror({ store: this.store, key: blobs.core.key!, mode: 'all', retentionMs: 0 })
    await blob.ready()
    this.cores.push(blob)
    this.log.info({ event: 'assets.mirroring', assetsKey: key }, 'mirroring the panel\'s art drive')
  }

  private async release (): Promise<void> {
    for (const c of this.cores.splice(0)) await c.close()
    await this.drive?.close().catch(() => {})
    this.drive = null
  }

  stats (): { assetsKey: string | null; blocksHeld: number; bytesHeld: number; bytesOut: number } {
    const s = this.cores.map((c) => c.stats())
    return { assetsKey: this.key, blocksHeld: s.reduce((n, x) => n + x.blocksHeld, 0), bytesHeld: s.reduce((n, x) => n + x.bytesHeld, 0), bytesOut: s.reduce((n, x) => n + x.bytesOut, 0) }
  }

  async close (): Promise<void> {
    this.closed = true
    await this.watch?.close()
    await this.queue.catch(() => {})
    await this.release()
  }
}

import Hyperdrive from 'hyperdrive'
import type Corestore from 'corestore'
import type { CatalogReader } from '@arus/catalog'
import { fromHex } from '@arus/crypto'
import type { BodySource } from './server/pump.js'
import type { AssetSource } from './server/routes.js'

/**
 * P2P art: the panel's assets drive (key advertised in `meta/panel`), replicated over the panel
 * connection and served under `/assets/<hash>.<ext>`. Opened on first use; art is public.
 */
export class PanelAssets implements AssetSource {
  private drive: Promise<Hyperdrive | null> | null = null
  private opened: Hyperdrive | null = null

  constructor (private readonly store: () => Corestore, private readonly catalog: () => CatalogReader | null) {}

  async size (path: string, { timeoutMs }: { timeoutMs: number }): Promise<number | null> {
    const drive = await this.open()
    if (drive === null) return null
    let entry = await drive.entry(path, { timeout: timeoutMs })
    if (entry === null) {
      // Art uploaded since the local replica last looked: fetch the drive's newest length first.
      await withTimeout(drive.update({ wait: true }), timeoutMs)
      entry = await drive.entry(path, { timeout: timeoutMs })
    }
    return entry === null ? null : entry.value.blob?.byteLength ?? 0
  }

  read (path: string, { start, end }: { start: number; end: number }): BodySource {
    if (this.opened === null) throw new Error('assets drive is not open')
    return this.opened.createReadStream(path, { start, end, wait: true }) as unknown as BodySource
  }

  async close (): Promise<void> {
    const d = this.opened
    this.opened = null
    this.drive = null
    await d?.close().catch(() => {})
  }

  private open (): Promise<Hyperdrive | null> {
    this.drive ??= (async () => {
      const meta = await this.catalog()?.getMeta('panel').catch(() => null)
      if (meta?.assetsKey === null || meta?.assetsKey === undefined) return null
      const drive = new Hyperdrive(this.store().session(), fromHex(meta.assetsKey, 32))
      await drive.ready()
      this.opened = drive
      return drive
    })().catch(() => null).then((d) => {
      if (d === null) this.drive = null
      return d
    })
    return this.drive
  }
}

function withTimeout<T> (p: Promise<T>, ms: number): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([p, new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), ms) })]).finally(() => clearTimeout(timer))
}

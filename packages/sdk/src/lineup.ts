import { parseKey, type CatalogReader, type CatMetaRecord, type RangeWatch, type StreamRecord } from '@arus/catalog'

/**
 * The replicated stream records, kept current by a watch on the `catalog/` range (driven by the
 * core's append events, so admin edits arrive as live pushes without polling — spec 3
 * 'streams'). `onChange` gets the ids whose records changed (null: deleted). The category
 * presentation records (`catmeta/`: rename, merge, order, hide) are watched the same way;
 * a change there calls `onChange` with no changed record.
 */
export class Lineup {
  readonly records = new Map<string, StreamRecord>()
  readonly categories = new Map<string, CatMetaRecord>()
  private watch: RangeWatch | null = null
  private metaWatch: RangeWatch | null = null

  constructor (private readonly onChange: (changed: Map<string, StreamRecord | null>) => void) {}

  start (reader: CatalogReader): void {
    if (this.watch !== null) return
    this.watch = reader.watch('catalog/', (changes) => {
      const changed = new Map<string, StreamRecord | null>()
      for (const { key, value } of changes) {
        let id: string
        try {
          id = parseKey(key).name
        } catch {
          continue
        }
        const record = value as StreamRecord | null
        if (record === null) this.records.delete(id)
        else this.records.set(id, record)
        changed.set(id, record)
      }
      if (changed.size > 0) this.onChange(changed)
    }, { initial: true })
    this.metaWatch = reader.watch('catmeta/', (changes) => {
      for (const { key, value } of changes) {
        let slug: string
        try {
          slug = parseKey(key).name
        } catch {
          continue
        }
        if (value === null) this.categories.delete(slug)
        else this.categories.set(slug, value as CatMetaRecord)
      }
      if (changes.length > 0) this.onChange(new Map())
    }, { initial: true })
  }

  /** Resolves once the first scans are in (bounded by the reader's read timeout and retries). */
  async ready (): Promise<void> { await Promise.all([this.watch?.ready(), this.metaWatch?.ready()]) }

  /**
   * Resolves once the records reflect the replica's current version (login reads the user
   * record at that version, so its display list must not lag behind it).
   */
  async settled (): Promise<void> { await Promise.all([this.watch?.settled(), this.metaWatch?.settled()]) }

  async close (): Promise<void> {
    const w = this.watch
    const m = this.metaWatch
    this.watch = null
    this.metaWatch = null
    this.records.clear()
    this.categories.clear()
    await w?.close()
    await m?.close()
  }
}

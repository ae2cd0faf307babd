import { parseKey, PREFIXES, type CatalogReader, type CatMetaRecord, type RangeWatch, type StreamRecord } from '@arus/catalog'

/**
 * The replicated stream records (`catalog/`) and the category presentation records (`catmeta/`:
 * rename, merge, order, hide), kept current by one watch over both ranges (driven by the core's
 * append events, so admin edits arrive as live pushes without polling — spec 3 'streams').
 * `onChange` gets the ids whose stream records changed (null: deleted); a presentation change
 * calls it too, with no stream record among the changes if none changed.
 */
export class Lineup {
  readonly records = new Map<string, StreamRecord>()
  readonly categories = new Map<string, CatMetaRecord>()
  private watch: RangeWatch | null = null

  constructor (private readonly onChange: (changed: Map<string, StreamRecord | null>) => void) {}

  start (reader: CatalogReader): void {
    if (this.watch !== null) return
    // One watch over both ranges: one pass per catalog append, not one per range.
    this.watch = reader.watch([PREFIXES.stream, PREFIXES.catMeta], (changes) => {
      const changed = new Map<string, StreamRecord | null>()
      let presentation = false
      for (const { key, value } of changes) {
        let parsed: { prefix: string; name: string }
        try {
          parsed = parseKey(key)
        } catch {
          continue
        }
        if (parsed.prefix === PREFIXES.catMeta) {
          presentation = true
          if (value === null) this.categories.delete(parsed.name)
          else this.categories.set(parsed.name, value as CatMetaRecord)
          continue
        }
        const record = value as StreamRecord | null
        if (record === null) this.records.delete(parsed.name)
        else this.records.set(parsed.name, record)
        changed.set(parsed.name, record)
      }
      if (changed.size > 0 || presentation) this.onChange(changed)
    }, { initial: true })
  }

  /** Resolves once the first scans are in (bounded by the reader's read timeout and retries). */
  async ready (): Promise<void> { await this.watch?.ready() }

  /**
   * Resolves once the records reflect the replica's current version (login reads the user
   * record at that version, so its display list must not lag behind it).
   */
  async settled (): Promise<void> { await this.watch?.settled() }

  async close (): Promise<void> {
    const w = this.watch
    this.watch = null
    this.records.clear()
    this.categories.clear()
    await w?.close()
  }
}

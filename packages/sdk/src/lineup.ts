import { parseKey, type CatalogReader, type RangeWatch, type StreamRecord } from '@arus/catalog'

/**
 * The replicated stream records, kept current by a watch on the `catalog/` range (driven by the
 * core's append events, so admin edits arrive as live pushes without polling — spec 3
 * 'streams'). `onChange` gets the ids whose records changed (null: deleted).
 */
export class Lineup {
  readonly records = new Map<string, StreamRecord>()
  private watch: RangeWatch | null = null

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
  }

  /** Resolves once the first scan is in (bounded by the reader's read timeout and retries). */
  async ready (): Promise<void> { await this.watch?.ready() }

  async close (): Promise<void> {
    const w = this.watch
    this.watch = null
    this.records.clear()
    await w?.close()
  }
}

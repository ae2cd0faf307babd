import type { z } from 'zod'
import { readJsonFile, withFileLock, writeJsonAtomic } from '@arus/service'

/**
 * A name → record map in one JSON file `{v: 1, [field]: {...}}`, held in memory by its one
 * writer (the daemon, or a CLI command while the daemon is stopped) and rewritten atomically
 * (temp file, fsync, rename) on every change, in one turn per file. An unchanged record writes
 * nothing.
 */
export class MapStore<T> {
  protected constructor (private readonly path: string, private readonly field: string, private readonly mode: number, protected readonly map: Map<string, T>) {}

  protected static async load<T> (path: string, field: string, file: z.ZodType<{ v: 1 } & Record<string, unknown>>): Promise<Map<string, T>> {
    const data = await readJsonFile(path, file, { missing: 'null' })
    return new Map(Object.entries((data?.[field] ?? {}) as Record<string, T>))
  }

  get (name: string): T | undefined { return this.map.get(name) }
  has (name: string): boolean { return this.map.has(name) }
  names (): string[] { return [...this.map.keys()].sort() }
  entries (): Array<[string, T]> { return [...this.map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) }
  get size (): number { return this.map.size }

  /** Read-modify-write in one turn: `fn` gets the current record and returns the new one (undefined deletes) and a result. */
  update<R = void> (name: string, fn: (rec: T | undefined) => { rec: T | undefined; result?: R }): Promise<R> {
    return withFileLock(this.path, async () => {
      const before = this.map.get(name)
      const { rec, result } = fn(before)
      if (JSON.stringify(before) !== JSON.stringify(rec)) {
        const next = new Map(this.map)
        if (rec === undefined) next.delete(name)
        else next.set(name, rec)
        await writeJsonAtomic(this.path, { v: 1, [this.field]: Object.fromEntries([...next.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) }, { mode: this.mode })
        if (rec === undefined) this.map.delete(name)
        else this.map.set(name, rec)
      }
      return result as R
    })
  }

  /** Sets a record (no write when unchanged). */
  put (name: string, rec: T): Promise<void> { return this.update(name, () => ({ rec })) }
  remove (name: string): Promise<void> { return this.update(name, () => ({ rec: undefined })) }
}

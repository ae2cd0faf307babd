import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import { keyedRecord, ownValue, readJsonFile, withFileLock, writeJsonAtomic } from '@arus/service'
import type { LibraryPaths } from '../paths.js'
import { TitlesFile, type RetiredFeed, type TitleRecord } from './model.js'

const KeysFile = z.object({ v: z.literal(1), keys: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)) })

/**
 * The library's state on disk: titles.json (definitions, states, feed generations, retired
 * generations awaiting purge, deletions awaiting their 'unavailable' register) and
 * private/title-keys.json (one content key per title, 0600). Held in memory, every change
 * written atomically before it is acknowledged. Title ids come from input: the maps have no
 * prototype, so an id like `__proto__` or `constructor` finds nothing and stores plain data.
 */
export interface TitleStore {
  get(id: string): TitleRecord | undefined
  list(): TitleRecord[]
  /** Writes `record` (insert or replace); a new title under a deleted one's id continues after its generations. */
  put(record: TitleRecord): Promise<void>
  remove(id: string): Promise<void>
  retired(): RetiredFeed[]
  setRetired(list: RetiredFeed[]): Promise<void>
  unregistering(): TitlesFile['unregister']
  setUnregistering(list: TitlesFile['unregister']): Promise<void>
  /** The title's content key, created on first use. */
  key(id: string): Promise<Uint8Array>
  dropKey(id: string): Promise<void>
}

export async function openTitleStore (paths: LibraryPaths): Promise<TitleStore> {
  const read = (await readJsonFile(paths.titles, TitlesFile, { missing: 'null' })) ?? { v: 1, titles: {}, retired: [], unregister: [], used: {} }
  const file: TitlesFile = { ...read, titles: keyedRecord(read.titles), used: keyedRecord(read.used) }
  const keys = keyedRecord((await readJsonFile(paths.keys, KeysFile, { missing: 'null' }))?.keys)
  const saveTitles = () => withFileLock(paths.titles, () => writeJsonAtomic(paths.titles, file, { mode: 0o600 }))
  const saveKeys = () => withFileLock(paths.keys, () => writeJsonAtomic(paths.keys, { v: 1, keys }, { mode: 0o600 }))
  return {
    get: (id) => ownValue(file.titles, id),
    list: () => Object.values(file.titles).sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id)),
    async put (record) {
      const floor = file.titles[record.id] === undefined ? file.used[record.id] ?? 0 : 0
      file.titles[record.id] = record.generation < floor ? { ...record, generation: floor } : record
      delete file.used[record.id]
      await saveTitles()
    },
    async remove (id) {
      const gone = file.titles[id]
      if (gone) file.used[id] = gone.generation
      delete file.titles[id]
      await saveTitles()
    },
    retired: () => [...file.retired],
    async setRetired (list) { file.retired = list; await saveTitles() },
    unregistering: () => [...file.unregister],
    async setUnregistering (list) { file.unregister = list; await saveTitles() },
    async key (id) {
      let hex = keys[id]
      if (hex === undefined) {
        hex = randomBytes(32).toString('hex')
        keys[id] = hex
        await saveKeys()
      }
      return Buffer.from(hex, 'hex')
    },
    async dropKey (id) {
      if (ownValue(keys, id) === undefined) return
      delete keys[id]
      await saveKeys()
    }
  }
}

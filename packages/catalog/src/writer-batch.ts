import b4a from 'b4a'
import type Hyperbee from 'hyperbee'
import { decodeRecord, encodeRecord } from './codec.js'
import type { CatalogRecord, RecordFor } from './codec.js'
import { CatalogError } from './errors.js'
import { parseKey } from './keys.js'
import type { CatalogBatch, UpdateFn, UpdateResult } from './index.js'

type BeeBatch = ReturnType<Hyperbee['batch']>

/**
 * Runs `fn` against one hyperbee batch: every put/del compares with the value the batch
 * currently sees and is skipped when nothing changes; the batch is flushed as one atomic
 * append only when something changed, and discarded when `fn` throws.
 */
export async function runBatch (bee: Hyperbee, fn: (b: CatalogBatch) => Promise<void> | void): Promise<{ changed: number }> {
  const hb = bee.batch()
  const state = { changed: 0, done: false }
  try {
    await fn(batchApi(hb, state))
  } catch (err) {
    state.done = true
    await hb.close()
    throw err
  }
  state.done = true
  if (state.changed > 0) await hb.flush()
  else await hb.close()
  return { changed: state.changed }
}

function batchApi (hb: BeeBatch, state: { changed: number; done: boolean }): CatalogBatch {
  const live = (): void => {
    if (state.done) throw CatalogError.invalidArgument('batch', 'used after the batch function returned')
  }
  const get = async (key: string): Promise<CatalogRecord | null> => {
    live()
    parseKey(key)
    const entry = await hb.get(key)
    if (entry === null) return null
    const record = decodeRecord(key, entry.value as Uint8Array)
    if (record === null) throw CatalogError.storedInvalid(key)
    return record
  }
  const putBytes = async (key: string, bytes: Uint8Array): Promise<boolean> => {
    const entry = await hb.get(key)
    if (entry !== null && b4a.equals(entry.value as Uint8Array, bytes)) return false
    await hb.put(key, bytes)
    state.changed++
    return true
  }
  const del = async (key: string): Promise<boolean> => {
    live()
    parseKey(key)
    if ((await hb.get(key)) === null) return false
    await hb.del(key)
    state.changed++
    return true
  }
  return {
    get: get as CatalogBatch['get'],
    async put (key: string, record: unknown) {
      live()
      return putBytes(key, encodeRecord(key, record).bytes)
    },
    del,
    async update<K extends string> (key: K, fn: UpdateFn<RecordFor<K>>): Promise<UpdateResult<RecordFor<K>>> {
      const current = (await get(key)) as RecordFor<K> | null
      const next = await fn(current)
      live()
      if (next === undefined) return { changed: false, record: current }
      if (next === null) return { changed: await del(key), record: null }
      const { record, bytes } = encodeRecord(key, next)
      return { changed: await putBytes(key, bytes), record: record as RecordFor<K> }
    }
  }
}

/**
 * In-process serialization of read-modify-write cycles on one file. The queue
 * map is process-wide on purpose: every caller touching the same path in this
 * process must wait in the same line. It does not guard against other processes.
 */
import { resolve } from 'node:path'

const queues = new Map<string, Promise<void>>()

/**
 * Runs `fn` once every earlier `withFileLock` call on the same (resolved)
 * path has settled, and returns its result. A failing `fn` releases the lock.
 */
export async function withFileLock<T> (path: string, fn: () => Promise<T> | T): Promise<T> {
  const key = resolve(path)
  const previous = queues.get(key) ?? Promise.resolve()
  let release!: () => void
  const mine = new Promise<void>((r) => { release = r })
  const tail = previous.then(() => mine)
  queues.set(key, tail)
  await previous
  try {
    return await fn()
  } finally {
    release()
    if (queues.get(key) === tail) queues.delete(key)
  }
}

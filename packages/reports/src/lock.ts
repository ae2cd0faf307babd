import { hostname } from 'node:os'
import { open, readFile, rename, stat, unlink } from 'node:fs/promises'
import { LOCK_STALE_MS, LOCK_WAIT_MS } from './constants.js'
import { ReportsError } from './errors.js'

/**
 * A lock file shared by processes (the running panel and report CLI commands beside it):
 * `open(wx)` creates it or fails, so exactly one holder at a time. Holders keep it for one
 * read-merge-write (milliseconds). An abandoned lock is taken over when its owner was on
 * this host and is gone, or when it is older than {@link LOCK_STALE_MS} (another host or
 * container, where the pid means nothing).
 */
export async function withProcessLock<T> (file: string, fn: () => Promise<T>, init: { waitMs?: number } = {}): Promise<T> {
  const lock = `${file}.lock`
  const deadline = Date.now() + (init.waitMs ?? LOCK_WAIT_MS)
  for (let attempt = 0; ; attempt++) {
    if (await tryCreate(lock)) break
    if (await isAbandoned(lock)) {
      // Move it aside first: of two processes taking over, only one rename succeeds.
      const aside = `${lock}.stale-${process.pid}-${attempt}`
      if (await rename(lock, aside).then(() => true, () => false)) await unlink(aside).catch(() => {})
      continue
    }
    if (Date.now() > deadline) throw ReportsError.busy(file.split('/').pop() ?? file)
    await new Promise((resolve) => setTimeout(resolve, 5 + Math.floor(Math.random() * 20)))
  }
  try {
    return await fn()
  } finally {
    await unlink(lock).catch(() => {})
  }
}

async function tryCreate (lock: string): Promise<boolean> {
  let handle
  try {
    handle = await open(lock, 'wx', 0o600)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw err
  }
  try {
    await handle.writeFile(JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now() }))
  } finally {
    await handle.close()
  }
  return true
}

async function isAbandoned (lock: string): Promise<boolean> {
  try {
    const [info, text] = await Promise.all([stat(lock), readFile(lock, 'utf8')])
    if (Date.now() - info.mtimeMs > LOCK_STALE_MS) return true
    const owner = JSON.parse(text) as { pid?: unknown; host?: unknown }
    return owner.host === hostname() && typeof owner.pid === 'number' && !isAlive(owner.pid)
  } catch {
    // Gone already (retry at once), or half-written by its creator this instant (not abandoned).
    return false
  }
}

function isAlive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

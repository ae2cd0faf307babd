import { hostname } from 'node:os'
import { open, readFile, unlink } from 'node:fs/promises'
import { ResellerError } from './errors.js'

/**
 * DATA_DIR/reseller.lock: held by the running daemon, which owns the ledger, accounts and
 * principals in memory. Writing CLI commands check it and refuse (RESELLER_ELOCKED) instead of
 * writing files under a running daemon. A lock left by a process that is gone (kill -9) is
 * taken over.
 */
export async function acquireDaemonLock (path: string): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const h = await open(path, 'wx', 0o600)
      await h.writeFile(JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now() }))
      await h.close()
      return async () => { await unlink(path).catch(() => {}) }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      if (await heldByLiveProcess(path)) throw ResellerError.of('RESELLER_ELOCKED', `another arus-reseller runs on this DATA_DIR (${path})`)
      await unlink(path).catch(() => {})
    }
  }
  throw ResellerError.of('RESELLER_ELOCKED', `could not take ${path}`)
}

/** True while a live process on this host holds the lock. */
export async function heldByLiveProcess (path: string): Promise<boolean> {
  try {
    const owner = JSON.parse(await readFile(path, 'utf8')) as { pid?: unknown; host?: unknown }
    if (owner.host !== hostname() || typeof owner.pid !== 'number') return true
    // Our own pid in the file is a previous run's (a container restarted with the same pid).
    if (owner.pid === process.pid) return false
    try {
      process.kill(owner.pid, 0)
      return true
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM'
    }
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ENOENT' && !(err instanceof SyntaxError)
  }
}

/** Refuses a writing CLI command while the daemon runs. */
export async function assertDaemonStopped (path: string, what: string): Promise<void> {
  if (await heldByLiveProcess(path)) throw ResellerError.of('RESELLER_ELOCKED', `${what} needs the daemon stopped (it owns DATA_DIR while it runs); use the API instead`)
}

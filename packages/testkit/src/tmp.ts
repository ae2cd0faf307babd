import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createStore } from '@arus/swarm'
import type Corestore from 'corestore'
import { registerTeardown } from './teardown.js'
import type { TestContextLike } from './teardown.js'

/** A fresh directory under the OS temp dir, removed (recursive, force) on teardown. */
export function tmpDir (t?: TestContextLike, prefix = 'arus-test-'): string {
  return ownedTmpDir(t, prefix).dir
}

/** {@link tmpDir} and its idempotent teardown, for helpers whose `close()` removes it. */
export function ownedTmpDir (t: TestContextLike | undefined, prefix: string): { dir: string; remove: () => Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return { dir, remove: registerTeardown(t, () => { rmSync(dir, { recursive: true, force: true }) }) }
}

/** A Corestore in a fresh {@link tmpDir}; on teardown the store closes, then the dir goes. */
export function tmpStore (t?: TestContextLike): Corestore {
  const dir = tmpDir(t, 'arus-store-')
  const store = createStore(dir)
  // Registered after the dir, so it runs first on both teardown routes (both are LIFO).
  registerTeardown(t, () => store.close())
  return store
}

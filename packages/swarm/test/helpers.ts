// Shared test helpers for @arus/swarm (testkit depends on this package, so it is not used here).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onTestFinished } from 'vitest'

/** Rejects with `label` if `promise` does not settle within `ms`. */
export async function within<T> (ms: number, label: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${label}`)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** A fresh temp dir removed when the current test finishes. */
export async function tempDir (): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'arus-swarm-test-'))
  onTestFinished(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** Resolves with the first chunk `stream` emits. */
export function firstData (stream: NodeJS.EventEmitter): Promise<Buffer> {
  return new Promise((resolve) => stream.once('data', resolve))
}

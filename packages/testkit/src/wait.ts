import { createServer } from 'node:net'
import { TestkitError } from './errors.js'

/** Options for {@link waitFor}. */
export interface WaitForInit {
  /** Give up after this long. Default 5000 ms. */
  timeoutMs?: number
  /** Pause between attempts. Default 25 ms. */
  intervalMs?: number
  /** What is being waited for, for the timeout message. Default `'condition'`. */
  message?: string
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Bounded polling: calls `fn` until it returns (or resolves to) a truthy value and returns
 * that value. A throw counts as "not yet"; the last one becomes the timeout's `cause`.
 * @throws TestkitError `TESTKIT_TIMEOUT` after `timeoutMs`; `TESTKIT_BAD_OPTION` for bad bounds.
 */
export async function waitFor<T> (fn: () => T | Promise<T>, init: WaitForInit = {}): Promise<NonNullable<T>> {
  const { timeoutMs = 5000, intervalMs = 25, message = 'condition' } = init
  if (!(Number.isFinite(timeoutMs) && timeoutMs >= 0)) throw TestkitError.badOption('timeoutMs', 'must be a finite number >= 0')
  if (!(Number.isFinite(intervalMs) && intervalMs > 0)) throw TestkitError.badOption('intervalMs', 'must be a finite number > 0')
  const deadline = Date.now() + timeoutMs
  let lastError: unknown
  for (;;) {
    try {
      const value = await fn()
      if (value) return value as NonNullable<T>
    } catch (err) {
      lastError = err
    }
    const left = deadline - Date.now()
    if (left <= 0) throw TestkitError.timeout(message, timeoutMs, lastError)
    await sleep(Math.min(intervalMs, left))
  }
}

/**
 * Resolves with `promise`, or rejects with `TESTKIT_TIMEOUT` naming `what` after `ms`
 * (`what` may be a function, evaluated at timeout to include late detail). The timer never
 * outlives the wait.
 */
export async function withTimeout<T> (promise: Promise<T>, ms: number, what: string | (() => string)): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(TestkitError.timeout(typeof what === 'string' ? what : what(), ms)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * A TCP port that was free on 127.0.0.1 a moment ago (bound to port 0, then released).
 * Another process may take it before you do; prefer listening on port 0 where possible.
 */
export function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

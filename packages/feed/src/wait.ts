import type { EventEmitter } from 'node:events'
import { FeedError } from './errors.js'

const noop = (): void => {}

/** Milliseconds left until `deadline` (never negative). */
export function remaining (deadline: number): number {
  return Math.max(0, deadline - Date.now())
}

/**
 * Settles with `promise`, or rejects with `onTimeout()` after `ms`, or with FEED_ABORTED
 * when `signal` fires. The losing promise is left to settle on its own (never unhandled).
 */
export function bounded<T> (promise: Promise<T>, ms: number, onTimeout: () => Error, signal?: AbortSignal): Promise<T> {
  promise.catch(noop)
  if (signal?.aborted === true) return Promise.reject(FeedError.aborted(signal.reason))
  let timer: NodeJS.Timeout | undefined
  let onAbort = noop
  const stop = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms)
    onAbort = () => reject(FeedError.aborted(signal?.reason))
    signal?.addEventListener('abort', onAbort, { once: true })
  })
  return Promise.race([promise, stop]).finally(() => {
    clearTimeout(timer)
    signal?.removeEventListener('abort', onAbort)
  })
}

/** Resolves after `ms`, early on abort (never rejects). */
export function sleep (ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => { clearTimeout(timer); signal?.removeEventListener('abort', done); resolve() }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}

/**
 * Counts events on some emitters, so a waiter can check a condition, then sleep until
 * anything changed *since that check* (no event is lost between the two).
 */
export class ChangeSignal {
  private count = 0
  private readonly waiters = new Set<() => void>()
  private readonly onEvent = (): void => {
    this.count++
    for (const wake of [...this.waiters]) wake()
  }

  constructor (private readonly sources: Array<[EventEmitter, string[]]>) {
    for (const [emitter, events] of sources) for (const e of events) emitter.on(e, this.onEvent)
  }

  /** The current event count; pass it to {@link wait}. */
  get seen (): number { return this.count }

  /** Resolves once an event arrived after `seen`, or after `ms`, or on abort. */
  wait (seen: number, ms: number, signal?: AbortSignal): Promise<void> {
    if (this.count !== seen || ms <= 0 || signal?.aborted === true) return Promise.resolve()
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer)
        this.waiters.delete(done)
        signal?.removeEventListener('abort', done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.waiters.add(done)
      signal?.addEventListener('abort', done, { once: true })
    })
  }

  close (): void {
    for (const [emitter, events] of this.sources) for (const e of events) emitter.off(e, this.onEvent)
    for (const wake of [...this.waiters]) wake()
  }
}

/** Hypercore / hyperbee error codes, mapped onto feed codes. */
export function mapReadError (err: unknown, path: string, ms: number): FeedError {
  if (err instanceof FeedError) return err
  const code = (err as { code?: unknown } | null)?.code
  if (code === 'REQUEST_TIMEOUT' || code === 'BLOCK_NOT_AVAILABLE') return FeedError.timeout(`read of ${path}`, ms, err)
  if (code === 'DECODING_ERROR') return FeedError.decryptFailed(err)
  if (code === 'SESSION_CLOSED' || code === 'REQUEST_CANCELLED') return FeedError.closed('reader')
  return FeedError.readFailed(path, err)
}

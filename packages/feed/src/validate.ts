import b4a from 'b4a'
import type Corestore from 'corestore'
import { KEY_BYTES } from './constants.js'
import { FeedError } from './errors.js'

// Explicit checks rather than zod: zod is not a dependency of this package.

/** A Corestore (or namespace/session): anything with get() and replicate(). */
export function checkStore (store: unknown): Corestore {
  const s = store as { get?: unknown; replicate?: unknown } | null
  if (s === null || typeof s !== 'object' || typeof s.get !== 'function' || typeof s.replicate !== 'function') {
    throw FeedError.invalidArgument('store', 'must be a Corestore')
  }
  return store as Corestore
}

/** A 32-byte key as a Buffer (hypercore wants Buffers). */
export function checkKey (name: string, key: unknown): Buffer {
  if (!(key instanceof Uint8Array) || key.byteLength !== KEY_BYTES) {
    throw FeedError.invalidArgument(name, `must be a ${KEY_BYTES}-byte Uint8Array`)
  }
  return b4a.isBuffer(key) ? key : b4a.from(key)
}

/** A bound in ms: an integer >= min (default 0), or the default when undefined. */
export function checkMs (name: string, value: unknown, fallback: number, min = 0): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > 2 ** 31 - 1) {
    throw FeedError.invalidArgument(name, `must be an integer number of ms >= ${min}`)
  }
  return value
}

/** An optional AbortSignal. */
export function checkSignal (signal: unknown): AbortSignal | undefined {
  if (signal === undefined) return undefined
  if (!(signal instanceof AbortSignal)) throw FeedError.invalidArgument('signal', 'must be an AbortSignal')
  return signal
}

/** An optional options object. */
export function checkOptions<T extends object> (opts: T | undefined): Partial<T> {
  if (opts === undefined) return {}
  if (opts === null || typeof opts !== 'object') throw FeedError.invalidArgument('options', 'must be an object')
  return opts
}

/** A byte offset: a non-negative safe integer, or undefined. */
export function checkOffset (name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw FeedError.invalidArgument(name, 'must be a non-negative integer')
  }
  return value
}

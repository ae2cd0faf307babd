import { expect } from 'vitest'
import { CryptoError } from '@arus/crypto'

/** The CryptoError code `fn` throws (failing the test if it throws anything else), or undefined. */
export function codeOf (fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(CryptoError)
    return (err as CryptoError).code
  }
  return undefined
}

/** The CryptoError code a promise rejects with; fails the test if it resolves. */
export async function rejectionCode (promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (err) {
    expect(err).toBeInstanceOf(CryptoError)
    return (err as CryptoError).code
  }
  throw new Error('expected a rejection')
}

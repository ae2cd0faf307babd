import { TestkitError } from './errors.js'

/**
 * The part of vitest's `TestContext` the helpers use: pass the test's context (`t`) and
 * each helper registers its own teardown with `t.onTestFinished`.
 */
export interface TestContextLike {
  onTestFinished(fn: () => unknown): void
}

// Every live resource's teardown, in creation order, until it has run once.
const pending = new Set<() => Promise<void>>()

/**
 * Registers `fn` as a teardown: on `t.onTestFinished` when `t` is given, and always on the
 * module-level list that {@link cleanupAll} drains. Returns the idempotent teardown itself
 * (running it, by any route, removes it from the list).
 */
export function registerTeardown (t: TestContextLike | undefined, fn: () => unknown): () => Promise<void> {
  let running: Promise<void> | null = null
  const teardown = (): Promise<void> => {
    running ??= (async () => {
      pending.delete(teardown)
      await fn()
    })()
    return running
  }
  pending.add(teardown)
  t?.onTestFinished(teardown)
  return teardown
}

/**
 * Runs every teardown not yet run, newest first (a store closes before its directory is
 * removed). For helpers created without a test context, e.g. in `beforeAll`: call it from
 * `afterAll`. Every step runs even if one fails.
 * @throws TestkitError `TESTKIT_CLEANUP_FAILED` with an AggregateError `cause`.
 */
export async function cleanupAll (): Promise<void> {
  const errors: unknown[] = []
  for (const teardown of [...pending].reverse()) {
    try { await teardown() } catch (err) { errors.push(err) }
  }
  if (errors.length > 0) throw TestkitError.cleanupFailed(errors)
}

/** Number of registered teardowns that have not run yet (for leak checks in tests). */
export function pendingTeardowns (): number {
  return pending.size
}

import { LOGIN_PANEL_WAIT_MS, LOGIN_RETRY_ATTEMPTS, LOGIN_RETRY_DELAY_MS, LOGIN_RETRY_TOTAL_MS } from './constants.js'
import { SdkError } from './errors.js'
import type { DisplayItem, Player } from './index.js'

export interface LoginRetryInit {
  /** Most login attempts. Default 30. */
  attempts?: number
  /** Pause between attempts. Default 1000 ms. */
  delayMs?: number
  /**
   * Bound on the whole retry, on top of `attempts`: each attempt's wait for the panel link is
   * cut to what is left, and once it is spent the last 'not connected to panel' is thrown.
   * Default 30000 ms (spec 3 "Errors": persisting over 30 s means a wrong panel key or an
   * unreachable panel). An attempt past the link wait (the OPRF round) is not cut short.
   */
  totalMs?: number
  /** Stops retrying (the last error is thrown); also ends an attempt's wait for the link. */
  signal?: AbortSignal
}

/**
 * The host retry pattern of spec 3 ("Login retry pattern for hosts"): retry login while it
 * fails with 'not connected to panel' (the panel link can lag behind 'ready'), up to 30 attempts
 * one second apart and at most 30 s in all, then rethrow; any other error is thrown at once.
 */
export async function loginWithRetry (player: Pick<Player, 'login'>, username: string, password: string, init: LoginRetryInit = {}): Promise<DisplayItem[]> {
  const attempts = init.attempts ?? LOGIN_RETRY_ATTEMPTS
  const delayMs = init.delayMs ?? LOGIN_RETRY_DELAY_MS
  const totalMs = init.totalMs ?? LOGIN_RETRY_TOTAL_MS
  if (typeof totalMs !== 'number' || !Number.isFinite(totalMs) || totalMs < 0) throw SdkError.invalidArgument('totalMs', 'must be a finite number of ms, 0 or more')
  const deadline = Date.now() + totalMs
  const signal = init.signal
  for (let i = 1; ; i++) {
    const linkWaitMs = Math.min(LOGIN_PANEL_WAIT_MS, Math.max(0, deadline - Date.now()))
    try {
      return await player.login(username, password, signal === undefined ? { linkWaitMs } : { linkWaitMs, signal })
    } catch (err) {
      const left = deadline - Date.now()
      if (!dialing(err) || i >= attempts || left <= 0 || signal?.aborted === true) throw err
      if (!(await pause(Math.min(delayMs, left), signal))) throw err
    }
  }
}

/** Spec 3 matches the message; an SdkError also carries its code. */
function dialing (err: unknown): boolean {
  return err instanceof Error && ((err as { code?: unknown }).code === 'SDK_NOT_CONNECTED' || err.message === 'not connected to panel')
}

/** Resolves true after `ms`, false at once when `signal` aborts. */
function pause (ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean): void => { clearTimeout(timer); signal?.removeEventListener('abort', onAbort); resolve(ok) }
    const onAbort = (): void => done(false)
    const timer = setTimeout(() => done(true), ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

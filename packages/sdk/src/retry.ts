import { LOGIN_RETRY_ATTEMPTS, LOGIN_RETRY_DELAY_MS } from './constants.js'
import type { DisplayItem, Player } from './index.js'

export interface LoginRetryInit {
  /** Default 30. */
  attempts?: number
  /** Default 1000 ms. */
  delayMs?: number
  /** Stops retrying (the last error is thrown). */
  signal?: AbortSignal
}

/**
 * The host retry pattern of spec 3 ("Login retry pattern for hosts"): retry login while it
 * fails with 'not connected to panel' (the panel link can lag behind 'ready'), up to 30 attempts
 * one second apart, then rethrow; any other error is thrown at once.
 */
export async function loginWithRetry (player: Pick<Player, 'login'>, username: string, password: string, init: LoginRetryInit = {}): Promise<DisplayItem[]> {
  const attempts = init.attempts ?? LOGIN_RETRY_ATTEMPTS
  const delayMs = init.delayMs ?? LOGIN_RETRY_DELAY_MS
  for (let i = 1; ; i++) {
    try {
      return await player.login(username, password)
    } catch (err) {
      const dialing = err instanceof Error && err.message === 'not connected to panel'
      if (!dialing || i >= attempts || init.signal?.aborted === true) throw err
      await new Promise((resolve) => setTimeout(resolve, delayMs))
    }
  }
}

/** The watchdog's respawn backoff, and the grace a push publisher gets from it. */

export interface BackoffSettings { backoffMinMs: number; backoffMaxMs: number }

/** Backoff after `consecutive` failed runs: RESPAWN_MIN_MS doubling up to RESPAWN_MAX_MS. */
export function backoffFor (s: BackoffSettings, consecutive: number): number {
  return Math.min(s.backoffMaxMs, s.backoffMinMs * 2 ** Math.min(20, Math.max(0, consecutive - 1)))
}

/**
 * How long a push publisher may be gone before its channel goes off the air (isLive false,
 * slate on): the time a pull source's SLATE_AFTER consecutive failed respawns spend in
 * backoff, so an idle listener gets the same grace as a failing pull source.
 */
export function publisherGraceMs (s: BackoffSettings & { slateAfter: number }): number {
  let ms = 0
  for (let k = 1; k < s.slateAfter; k++) ms += backoffFor(s, k)
  return ms
}

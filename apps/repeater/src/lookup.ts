/** The first look again after a join that found nobody, and the longest gap between looks. */
export const LONELY_REFRESH_MIN_MS = 5_000
export const LONELY_REFRESH_MAX_MS = 60_000

/**
 * Looks a topic up again while nobody is found on it. Hyperswarm looks a joined topic up once
 * and then only every ten minutes, and two peers that both only announce never dial each other:
 * a repeater started while the panel (or an origin) was down would wait minutes after it came
 * back. So while `lonely()` holds, the lookup is refreshed at doubling intervals from
 * LONELY_REFRESH_MIN_MS up to LONELY_REFRESH_MAX_MS; once a peer is there the backoff resets.
 */
export class LonelyRefresh {
  private backoff = LONELY_REFRESH_MIN_MS
  private nextAt: number

  constructor (private readonly session: { refresh(): Promise<void> }, private readonly lonely: () => boolean, private readonly now: () => number = Date.now) {
    this.nextAt = now() + LONELY_REFRESH_MIN_MS
  }

  /** Call on a timer (the repeater's 2 s tick): refreshes when lonely and due. */
  tick (): boolean {
    const t = this.now()
    if (!this.lonely()) {
      this.backoff = LONELY_REFRESH_MIN_MS
      this.nextAt = t + LONELY_REFRESH_MIN_MS
      return false
    }
    if (t < this.nextAt) return false
    this.backoff = Math.min(LONELY_REFRESH_MAX_MS, this.backoff * 2)
    this.nextAt = t + this.backoff
    this.session.refresh().catch(() => {})
    return true
  }
}

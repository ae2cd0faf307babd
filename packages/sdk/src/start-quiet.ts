/**
 * The read-ahead's quiet start (docs/architecture.md "First frame"). Until a player has asked
 * for its second segment, a feed session fetches only what the first frame needs: the segment
 * the tune prefetches and the one the player asks for. Reading the following segments ahead
 * meanwhile competed with the player for the CPU while it parsed its first segment (hls.js in
 * Chromium at 5 Mbit/s: its first segment's parse took 137 ms against 73 without, and the
 * first frame 333 against 249 ms). The quiet ends at the player's second distinct segment
 * request, or QUIET_MAX_MS after its first one, whichever comes first.
 */

/** The longest a quiet start lasts after the player's first segment request (ms). */
export const QUIET_MAX_MS = 1_000

export class StartQuiet {
  private first: string | null = null
  private firstAt = 0
  private over = false

  constructor (private readonly now: () => number) {}

  /** Whether read-ahead waits (checked before each read-ahead). */
  get quiet (): boolean {
    if (!this.over && this.first !== null && this.now() - this.firstAt >= QUIET_MAX_MS) this.over = true
    return !this.over
  }

  /** The player asked for a segment (a range of the same one does not count twice). */
  segmentRequested (path: string): void {
    if (this.over) return
    if (this.first === null) {
      this.first = path
      this.firstAt = this.now()
    } else if (path !== this.first) {
      this.over = true
    }
  }
}

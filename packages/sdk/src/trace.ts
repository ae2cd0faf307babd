/**
 * A phase-by-phase record of one operation (login): when each step started, relative to the
 * operation's start, and how long it took. Steps that overlap show overlapping spans.
 * `diagnostics().lastLogin` exposes the last login's record (docs/benchmarks.md "Login phases").
 */
export interface Phase {
  name: string
  /** Start, ms after the operation began (0.1 ms resolution). */
  startMs: number
  ms: number
}

const clock: () => number = typeof globalThis.performance?.now === 'function'
  ? () => globalThis.performance.now()
  : () => Date.now()

const round = (ms: number): number => Math.round(ms * 10) / 10

export class PhaseTrace {
  readonly phases: Phase[] = []
  private readonly t0 = clock()

  /** Runs `fn` as the phase `name`; the phase is recorded whether it resolves or throws. */
  async time<T> (name: string, fn: () => Promise<T> | T): Promise<T> {
    const start = clock()
    try {
      return await fn()
    } finally {
      this.phases.push({ name, startMs: round(start - this.t0), ms: round(clock() - start) })
    }
  }

  /** Milliseconds since the trace began. */
  elapsed (): number { return round(clock() - this.t0) }
}

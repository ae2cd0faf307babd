/**
 * Which source the watchdog tries next: consecutive failures are counted per source (a pull
 * URL and each of its fallbacks); after `slateAfter` of them the next source with attempts
 * left takes over, and when none has any left the channel is exhausted (the slate goes on).
 */
export interface SourceCursor {
  current(): string
  all(): string[]
  failuresAt(index: number): number
  totalFailures(): number
  /** Counts a failure of the current source: stay on it, move to the next, or exhausted. */
  failed(): 'same' | 'next' | 'exhausted'
  /** The current source fed segments: every count starts again. */
  succeeded(): void
  /** Make `index` current and clear every count. */
  select(index: number): void
  reset(): void
}

export function createSourceCursor (sources: string[], slateAfter: number): SourceCursor {
  if (sources.length === 0) throw new Error('a channel needs at least one source')
  let index = 0
  let failures = sources.map(() => 0)
  const clear = () => { failures = sources.map(() => 0) }
  return {
    current: () => sources[index]!,
    all: () => [...sources],
    failuresAt: (i) => failures[i] ?? 0,
    totalFailures: () => failures.reduce((a, b) => a + b, 0),
    failed () {
      failures[index] = (failures[index] ?? 0) + 1
      if (failures[index]! < slateAfter) return 'same'
      for (let step = 1; step < sources.length; step++) {
        const j = (index + step) % sources.length
        if (failures[j]! < slateAfter) { index = j; return 'next' }
      }
      return 'exhausted'
    },
    succeeded: clear,
    select (i) { index = Math.max(0, Math.min(sources.length - 1, i)); clear() },
    reset () { index = 0; clear() }
  }
}

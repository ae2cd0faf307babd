/**
 * The lowest-priority lane (spec 1 "Storm behavior": reports must not slow login and session).
 * One job at a time, each started from a setImmediate, so the I/O callbacks already waiting
 * (other RPC requests) run first. A full lane refuses at once instead of queueing more.
 */
export interface Lane {
  /** Runs `fn` in the lane, or resolves `full` without running it when `max` jobs wait. */
  run<T, F>(fn: () => Promise<T>, full: F): Promise<T | F>
  /** Jobs waiting or running. */
  size(): number
}

export function createLane (max: number): Lane {
  const waiting: Array<() => void> = []
  let busy = false
  const next = (): void => {
    const start = waiting.shift()
    if (start === undefined) { busy = false; return }
    setImmediate(start)
  }
  return {
    run (fn, full) {
      if (waiting.length + (busy ? 1 : 0) >= max) return Promise.resolve(full)
      return new Promise((resolve, reject) => {
        waiting.push(() => { fn().then(resolve, reject).finally(next) })
        if (!busy) { busy = true; next() }
      })
    },
    size: () => waiting.length + (busy ? 1 : 0)
  }
}

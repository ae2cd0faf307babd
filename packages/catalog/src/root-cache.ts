import type Hyperbee from 'hyperbee'
import { readInPlace } from './read-in-place.js'

/**
 * Hyperbee keeps the tree nodes it reads in memory, not the ones it writes, so every catalog
 * write would begin by reading back from storage the root the previous write appended (one
 * storage round trip on the way of each admin edit, docs/architecture.md "Edit propagation").
 * This reads the newest root once right after each append, off the edit's path, so the next
 * lookup starts from memory. One read in flight; a burst of appends costs one or two reads.
 *
 * Returns a function that stops it.
 */
export function cacheNewestRoot (bee: Hyperbee): () => void {
  let running = false
  let again = false
  let stopped = false
  const run = async (): Promise<void> => {
    running = true
    try {
      do {
        again = false
        const version = bee.version
        // read in place: no snapshot session opened and closed for it; a closing bee's failure is
        // harmless (the next lookup reads the root itself)
        if (version > 1) await readInPlace(bee, (batch) => batch.getBySeq(version - 1)).catch(() => null)
      } while (again && !stopped)
    } finally {
      running = false
    }
  }
  const onAppend = (): void => {
    if (stopped) return
    if (running) { again = true; return }
    void run()
  }
  bee.core.on('append', onAppend)
  return () => {
    stopped = true
    bee.core.off('append', onAppend)
  }
}

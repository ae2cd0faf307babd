import type Hyperbee from 'hyperbee'

type BeeBatch = ReturnType<Hyperbee['batch']>

/**
 * Runs `read` on a hyperbee batch that never puts, then closes it. A bee's own get() and
 * getBySeq() open a snapshot session of the core and close it again, which costs more than the
 * lookup itself (~0.3 ms of ~0.6 on the way of every admin edit, docs/architecture.md "Edit
 * propagation"); the batch reads the newest version straight from the core, with the bee's
 * shared node and key caches. For the writer only: it is the one appending, and it wants the
 * newest version anyway.
 */
export async function readInPlace<T> (bee: Hyperbee, read: (batch: BeeBatch) => Promise<T>): Promise<T> {
  const batch = bee.batch()
  try {
    return await read(batch)
  } finally {
    await batch.close()
  }
}

/**
 * Write serialization for the catalog writer. Single-key operations take the shared side of
 * a FIFO read-write lock plus an exclusive per-key mutex (so a read-modify-write of one key
 * never loses a concurrent update); a multi-key batch takes the exclusive side.
 */
export class WriteLocks {
  private mode = 0 // > 0: shared holders; -1: exclusive holder
  private readonly queue: Array<{ exclusive: boolean; grant: () => void }> = []
  private readonly keyTails = new Map<string, Promise<void>>()

  /** Runs `fn` with `key` locked against every other writer of `key` and against batches. */
  async withKey<T> (key: string, fn: () => Promise<T>): Promise<T> {
    await this.acquire(false)
    try {
      return await this.serialize(key, fn)
    } finally {
      this.release()
    }
  }

  /** Runs `fn` with every key locked. */
  async exclusive<T> (fn: () => Promise<T>): Promise<T> {
    await this.acquire(true)
    try {
      return await fn()
    } finally {
      this.release()
    }
  }

  private async serialize<T> (key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.keyTails.get(key) ?? Promise.resolve()
    let done!: () => void
    const tail = new Promise<void>((resolve) => { done = resolve })
    this.keyTails.set(key, tail)
    await prev
    try {
      return await fn()
    } finally {
      done()
      if (this.keyTails.get(key) === tail) this.keyTails.delete(key)
    }
  }

  private acquire (exclusive: boolean): Promise<void> {
    return new Promise((resolve) => {
      this.queue.push({ exclusive, grant: resolve })
      this.drain()
    })
  }

  private release (): void {
    this.mode = this.mode === -1 ? 0 : this.mode - 1
    this.drain()
  }

  private drain (): void {
    // FIFO: a waiting batch is not overtaken by later single-key operations.
    while (this.queue.length > 0) {
      const head = this.queue[0]!
      if (head.exclusive ? this.mode !== 0 : this.mode === -1) return
      this.queue.shift()
      this.mode = head.exclusive ? -1 : this.mode + 1
      head.grant()
    }
  }
}

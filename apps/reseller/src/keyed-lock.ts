/** One turn at a time per key (an account's operations, in order), different keys in parallel. */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>()

  run<T> (key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve()
    const mine = previous.catch(() => {}).then(fn)
    const tail = mine.catch(() => {})
    this.tails.set(key, tail)
    void tail.then(() => { if (this.tails.get(key) === tail) this.tails.delete(key) })
    return mine
  }

  /** Keys with a turn running or waiting. */
  get busy (): number { return this.tails.size }
}

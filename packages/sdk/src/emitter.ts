/**
 * A small typed event emitter with no Node built-in behind it (the engine must run in Bare).
 * Unlike Node's EventEmitter it never throws on an unhandled 'error' (spec 3 "Events"), and a
 * listener that throws is isolated: the others still run and the throw is dropped.
 */
export type EventMap = { [event: string]: unknown[] }
export type Listener<A extends unknown[]> = (...args: A) => void

export class SafeEmitter<E extends EventMap> {
  private readonly listeners = new Map<keyof E, Array<{ fn: Listener<any>; once: boolean }>>()

  on<K extends keyof E> (event: K, fn: Listener<E[K]>): this {
    this.add(event, fn, false)
    return this
  }

  once<K extends keyof E> (event: K, fn: Listener<E[K]>): this {
    this.add(event, fn, true)
    return this
  }

  off<K extends keyof E> (event: K, fn: Listener<E[K]>): this {
    const list = this.listeners.get(event)
    if (list === undefined) return this
    const i = list.findIndex((l) => l.fn === fn)
    if (i >= 0) list.splice(i, 1)
    if (list.length === 0) this.listeners.delete(event)
    return this
  }

  removeAllListeners (event?: keyof E): this {
    if (event === undefined) this.listeners.clear()
    else this.listeners.delete(event)
    return this
  }

  listenerCount (event: keyof E): number {
    return this.listeners.get(event)?.length ?? 0
  }

  /** Calls every listener; returns whether there was one. Never throws. */
  emit<K extends keyof E> (event: K, ...args: E[K]): boolean {
    const list = this.listeners.get(event)
    if (list === undefined || list.length === 0) return false
    for (const l of [...list]) {
      if (l.once) this.off(event, l.fn)
      try {
        l.fn(...args)
      } catch {
        // A host listener's bug must not break the engine's event flow.
      }
    }
    return true
  }

  private add (event: keyof E, fn: Listener<any>, once: boolean): void {
    if (typeof fn !== 'function') throw new TypeError('listener must be a function')
    const list = this.listeners.get(event) ?? []
    list.push({ fn, once })
    this.listeners.set(event, list)
  }
}

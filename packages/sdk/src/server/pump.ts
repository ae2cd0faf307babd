import type { HttpResponseLike } from '../runtime.js'

/** A body source: an async iterable of chunks that can be torn down early. */
export interface BodySource extends AsyncIterable<Uint8Array> {
  destroy?(err?: Error): unknown
}

export type PumpOutcome = 'done' | 'client-gone' | 'stalled' | 'failed'

/**
 * Streams `src` into `res` as blocks arrive, honouring back-pressure. A source that yields no
 * chunk for `stallMs` is aborted (ARCHITECTURE.md "a read that stalls is aborted") and the
 * response destroyed, so the player sees a cut body and retries instead of hanging.
 */
export async function pump (src: BodySource, res: HttpResponseLike, stallMs: number): Promise<PumpOutcome> {
  const it = src[Symbol.asyncIterator]()
  let gone = res.destroyed
  const onClose = (): void => { gone = true; wake() }
  let wake = (): void => {}
  res.on('close', onClose)
  try {
    for (;;) {
      if (gone) return 'client-gone'
      const next = await withStall(it.next(), stallMs, (w) => { wake = w })
      if (next === 'stalled') return 'stalled'
      if (next === 'woken') return 'client-gone'
      if (next.done === true) return 'done'
      if (!res.write(next.value)) {
        await new Promise<void>((resolve) => {
          const go = (): void => { res.off('drain', go); resolve() }
          wake = go
          res.on('drain', go)
        })
      }
    }
  } catch {
    return gone ? 'client-gone' : 'failed'
  } finally {
    res.off('close', onClose)
    wake = () => {}
    src.destroy?.()
    it.return?.().catch(() => {})
  }
}

function withStall<T> (p: Promise<T>, ms: number, setWake: (fn: () => void) => void): Promise<T | 'stalled' | 'woken'> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve('stalled'), ms)
    setWake(() => { clearTimeout(timer); resolve('woken') })
    p.then((v) => { clearTimeout(timer); resolve(v) }, (err) => { clearTimeout(timer); reject(err) })
  })
}

import { Readable } from 'node:stream'
import { FeedError } from './errors.js'
import { mapReadError } from './wait.js'

/** The part of a streamx Readable (hyperblobs' read stream) this wrapper drives. */
export interface InnerStream {
  on(event: 'data', fn: (chunk: Buffer) => void): unknown
  on(event: 'end', fn: () => void): unknown
  on(event: 'error', fn: (err: unknown) => void): unknown
  pause(): unknown
  resume(): unknown
  destroy(err?: unknown): unknown
}

/**
 * A Node Readable over a lazily opened inner stream, with a stall bound: whenever the
 * consumer wants data and none arrives for `stallMs` (opening included), the stream is
 * destroyed with FEED_STALLED. Time the consumer spends not reading never counts. The open
 * runs outside `_construct` so that destroy() works even while it hangs on the network.
 */
export class StallingReadable extends Readable {
  private inner: InnerStream | null = null
  private timer: NodeJS.Timeout | null = null
  private readonly onAbort = (): void => { this.destroy(FeedError.aborted(this.signal?.reason)) }

  constructor (
    open: () => Promise<InnerStream | null>,
    private readonly path: string,
    private readonly stallMs: number,
    private readonly signal: AbortSignal | undefined,
    private readonly onFinish: (stream: StallingReadable) => void
  ) {
    super()
    if (signal?.aborted === true) {
      process.nextTick(this.onAbort)
    } else {
      signal?.addEventListener('abort', this.onAbort, { once: true })
      this.arm()
      open().then((inner) => this.attach(inner), (err) => this.destroy(this.mapError(err)))
    }
  }

  private mapError (err: unknown): Error {
    const mapped = mapReadError(err, this.path, this.stallMs)
    return mapped.code === 'FEED_TIMEOUT' ? FeedError.stalled(this.path, this.stallMs) : mapped
  }

  private attach (inner: InnerStream | null): void {
    if (this.destroyed) { inner?.destroy(); return }
    if (inner === null) { this.disarm(); this.push(null); return }
    this.inner = inner
    inner.on('data', (chunk) => {
      if (this.push(chunk)) this.arm()
      else { this.disarm(); inner.pause() }
    })
    inner.on('end', () => { this.disarm(); this.push(null) })
    inner.on('error', (err) => { this.destroy(this.mapError(err)) })
  }

  private arm (): void {
    this.disarm()
    this.timer = setTimeout(() => { this.destroy(FeedError.stalled(this.path, this.stallMs)) }, this.stallMs)
  }

  private disarm (): void {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
  }

  override _read (): void {
    if (this.inner === null) return // still opening: the open's timer is armed
    this.arm()
    this.inner.resume()
  }

  override _destroy (err: Error | null, cb: (err?: Error | null) => void): void {
    this.disarm()
    this.signal?.removeEventListener('abort', this.onAbort)
    this.inner?.destroy()
    this.onFinish(this)
    cb(err)
  }
}

import { Agent, request } from 'undici'
import type { Logger } from '@arus/service'
import { NOTIFY_ATTEMPTS, NOTIFY_QUEUE_MAX, NOTIFY_RESPONSE_CAP_BYTES, NOTIFY_TIMEOUT_MS } from './constants.js'
import { headerSafe, type Notification } from './message.js'
import type { DeliveryResult } from './schemas.js'

/** Where notifications go. Both are secrets (the webhook path and the bot token are credentials). */
export interface NotifyTargets {
  webhookUrl: string | null
  messenger: { apiBase: string; botToken: string; chatId: string } | null
}

export interface Notifier {
  /** Target names configured (never their URLs). */
  readonly targets: Array<'webhook' | 'messenger'>
  /** Queues a notification and returns at once (fail-dark: never awaited by ingest). */
  enqueue(n: Notification): void
  /** Delivers `n` now through every target with the same attempt policy, and reports per target. */
  deliverNow(n: Notification): Promise<DeliveryResult[]>
  /** Notifications waiting (at most {@link NOTIFY_QUEUE_MAX}). */
  queued(): number
  /** Stops the worker; what is queued is dropped (logged). */
  close(): Promise<void>
}

type Target = DeliveryResult['target']

/**
 * Fail-dark delivery (spec 1 "Events"): one serial worker, 8 s per attempt, at most 64 KiB of a
 * response read, 3 attempts (waits `retryMs` and 2×`retryMs` between them; about 30 s by
 * default), then dropped with a warning; a queue of 50, oldest dropped first. Errors name the
 * target and what went wrong, never its URL or token.
 */
export function createNotifier (targets: NotifyTargets, init: { log: Logger; retryMs: number; onResult?: (r: DeliveryResult) => void }): Notifier {
  const queue: Notification[] = []
  const ac = new AbortController()
  let running = false
  let closed = false
  const names: Target[] = [...(targets.webhookUrl !== null ? ['webhook' as const] : []), ...(targets.messenger !== null ? ['messenger' as const] : [])]

  const post = async (target: Target, n: Notification): Promise<{ status: number }> => {
    const { url, headers, body } = target === 'webhook'
      ? {
          url: targets.webhookUrl!,
          headers: { 'content-type': 'application/json', 'x-title': headerSafe(n.title) },
          body: JSON.stringify({ title: n.title, message: n.message, text: n.message, content: n.message, channel: n.channel, count: n.count })
        }
      : {
          url: `${targets.messenger!.apiBase.replace(/\/+$/, '')}/bot${targets.messenger!.botToken}/sendMessage`,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ chat_id: targets.messenger!.chatId, text: n.message })
        }
    // One connection per attempt, destroyed at the deadline whatever state it is in: an
    // attempt can never outlive NOTIFY_TIMEOUT_MS, and no socket outlives its attempt.
    const agent = new Agent({ connections: 1, pipelining: 1 })
    let timedOut = false
    const timer = setTimeout(() => { timedOut = true; void agent.destroy().catch(() => {}) }, NOTIFY_TIMEOUT_MS)
    const stop = (): void => { void agent.destroy().catch(() => {}) }
    ac.signal.addEventListener('abort', stop, { once: true })
    try {
      const res = await request(url, { method: 'POST', headers, body, dispatcher: agent })
      let read = 0
      try {
        for await (const chunk of res.body) {
          read += (chunk as Buffer).byteLength
          if (read >= NOTIFY_RESPONSE_CAP_BYTES) break // the rest is never read
        }
      } finally {
        res.body.destroy()
      }
      return { status: res.statusCode }
    } catch (err) {
      throw timedOut ? Object.assign(new Error('timeout'), { name: 'TimeoutError' }) : err
    } finally {
      clearTimeout(timer)
      ac.signal.removeEventListener('abort', stop)
      await agent.destroy().catch(() => {})
    }
  }

  const attemptAll = async (target: Target, n: Notification): Promise<DeliveryResult> => {
    let last: DeliveryResult = { target, ok: false, attempts: 0 }
    for (let attempt = 1; attempt <= NOTIFY_ATTEMPTS && !closed; attempt++) {
      if (attempt > 1) await sleep(init.retryMs * (attempt - 1), ac.signal)
      if (closed) break
      try {
        const { status } = await post(target, n)
        last = status >= 200 && status < 300 ? { target, ok: true, status, attempts: attempt } : { target, ok: false, status, attempts: attempt, error: `HTTP ${status}` }
      } catch (err) {
        last = { target, ok: false, attempts: attempt, error: describe(err) }
      }
      if (last.ok) break
    }
    init.onResult?.(last)
    return last
  }

  const deliverNow = async (n: Notification): Promise<DeliveryResult[]> => Promise.all(names.map((t) => attemptAll(t, n)))

  const work = async (): Promise<void> => {
    if (running) return
    running = true
    try {
      while (queue.length > 0 && !closed) {
        const n = queue.shift()!
        for (const r of await deliverNow(n)) {
          if (r.ok) init.log.info({ event: 'reports.notify.sent', target: r.target, attempts: r.attempts }, 'alert notification delivered')
          else init.log.warn({ event: 'reports.notify.dropped', target: r.target, attempts: r.attempts, reason: r.error }, 'alert notification dropped after its attempts')
        }
      }
    } finally {
      running = false
    }
  }

  return {
    targets: names,
    enqueue (n) {
      if (names.length === 0 || closed) return
      queue.push(n)
      while (queue.length > NOTIFY_QUEUE_MAX) {
        queue.shift()
        init.log.warn({ event: 'reports.notify.queue-full', max: NOTIFY_QUEUE_MAX }, 'notification queue full: the oldest was dropped')
      }
      void work().catch((err: unknown) => init.log.error({ event: 'reports.notify.worker-failed', err: (err as Error).message }, 'notifier worker failed'))
    },
    deliverNow,
    queued: () => queue.length,
    async close () {
      if (closed) return
      closed = true
      if (queue.length > 0) init.log.warn({ event: 'reports.notify.dropped', count: queue.length, reason: 'shutdown' }, 'queued notifications dropped at shutdown')
      queue.length = 0
      ac.abort()
    }
  }
}

/** What went wrong, without the URL (undici messages may carry it). */
function describe (err: unknown): string {
  const e = err as { name?: string; code?: string }
  if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') return 'timeout'
  if (e.name === 'AbortError') return 'aborted'
  return typeof e.code === 'string' ? `connection failed (${e.code})` : 'connection failed'
}

function sleep (ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) { resolve(); return }
    const t = setTimeout(done, ms)
    function done (): void { clearTimeout(t); signal.removeEventListener('abort', done); resolve() }
    signal.addEventListener('abort', done, { once: true })
  })
}

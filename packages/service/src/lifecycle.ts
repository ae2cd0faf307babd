/**
 * Graceful shutdown: on the first signal run the closers once, in order, and
 * exit; a second signal while they run forces exit 1.
 */
import type { Logger } from 'pino'
import { z } from 'zod'
import { ServiceError } from './errors.js'

/** One shutdown step, e.g. `() => server.close()`. */
export type Closer = () => Promise<void>

/** Options of `onShutdown`. */
export interface ShutdownInit {
  /** Signals to handle (default ['SIGINT', 'SIGTERM']). */
  signals?: NodeJS.Signals[]
  /** Bound on the whole shutdown; past it the exit code is 1 (default 10000). */
  timeoutMs?: number
  /**
   * `true` (default) calls `process.exit(code)` when done; `false` never exits
   * (tests, embedding); a function is called with the code instead.
   */
  exit?: boolean | ((code: number) => void)
}

/** Runs the shutdown (once; later calls return the same promise). Resolves to the exit code: 0 clean, 1 if a closer failed or the timeout passed. */
export type Shutdown = (reason?: string) => Promise<number>

const initSchema = z.object({
  signals: z.array(z.string().regex(/^SIG[A-Z0-9]+$/)).default(['SIGINT', 'SIGTERM']),
  timeoutMs: z.number().int().positive().default(10_000)
})

/**
 * Installs signal handlers that run `closers` in the given order, once, then
 * exit (0 when every closer succeeded in time, else 1). A closer that throws is
 * logged and the next one still runs. The handlers are removed when the
 * shutdown finishes. Returns a function that runs the same shutdown.
 */
export function onShutdown (logger: Logger, closers: Closer[], init: ShutdownInit = {}): Shutdown {
  const parsed = initSchema.safeParse({ signals: init.signals, timeoutMs: init.timeoutMs })
  if (!parsed.success) throw ServiceError.invalidArgument(`onShutdown: ${z.prettifyError(parsed.error)}`)
  const signals = parsed.data.signals as NodeJS.Signals[]
  const { timeoutMs } = parsed.data
  const steps = [...closers]
  let running: Promise<number> | undefined
  let exited = false

  const exit = (code: number): void => {
    if (exited || init.exit === false) return
    exited = true
    if (typeof init.exit === 'function') init.exit(code)
    else process.exit(code)
  }

  const onSignal = (signal: NodeJS.Signals): void => {
    if (running !== undefined) {
      logger.warn({ signal }, 'second signal during shutdown, forcing exit')
      exit(1)
      return
    }
    void shutdown(signal)
  }

  const uninstall = (): void => {
    for (const s of signals) process.off(s, onSignal)
  }

  const runSteps = async (): Promise<number> => {
    let code = 0
    for (const [index, close] of steps.entries()) {
      try {
        await close()
      } catch (err) {
        code = 1
        logger.error({ err, step: index }, 'shutdown step failed')
      }
    }
    return code
  }

  const shutdown: Shutdown = (reason = 'requested') => {
    running ??= (async () => {
      logger.info({ reason }, 'shutting down')
      let timer: NodeJS.Timeout | undefined
      const timedOut = new Promise<number>((resolve) => {
        timer = setTimeout(() => {
          logger.error({ timeoutMs }, 'shutdown timed out')
          resolve(1)
        }, timeoutMs)
        timer.unref()
      })
      const code = await Promise.race([runSteps(), timedOut])
      clearTimeout(timer)
      uninstall()
      if (code === 0) logger.info('shutdown complete')
      exit(code)
      return code
    })()
    return running
  }

  for (const s of signals) process.on(s, onSignal)
  return shutdown
}

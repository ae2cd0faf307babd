import { realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { randomBytes, validateArgonCost, type ArgonCost } from '@arus/crypto'
import { ServiceError } from '../errors.js'
import { VERIFY_THREAD_SOURCE } from './verify-thread.js'

/**
 * Password verification one at a time, off the main loop (spec 1 "Authentication" 3):
 * Argon2id runs in a dedicated worker thread. A call while one runs is refused at once
 * (`SERVICE_VERIFY_BUSY`); one that exceeds `timeoutMs` is refused (`SERVICE_VERIFY_TIMEOUT`)
 * and its worker is terminated and replaced, so a runaway cost cannot wedge logins.
 */

/** One verification: Argon2id(input, salt, cost) compared with `verifier` (32 bytes). */
export interface VerifyJob {
  input: Uint8Array
  salt: Uint8Array
  cost: ArgonCost
  verifier: Uint8Array
}

/** Counters of a {@link VerifyWorker}. */
export interface VerifyWorkerStats {
  /** Verifications handed to the worker thread. */
  started: number
  /** Verifications that returned a result (match or not). */
  completed: number
  /** Calls refused because one was running. */
  busy: number
  /** Verifications abandoned at the timeout. */
  timedOut: number
  /** Worker threads replaced after a timeout or a crash. */
  replaced: number
  /** Thread id of the current worker (null once closed with none running). */
  threadId: number | null
}

export interface VerifyWorker {
  /** True while a verification (including its preparation) holds the slot. */
  readonly running: boolean
  /**
   * Claims the slot synchronously, then awaits `job` (a value or a function preparing it,
   * e.g. reading a verifier file) and verifies it. Rejects `SERVICE_VERIFY_BUSY` at once when
   * the slot is taken, `SERVICE_VERIFY_TIMEOUT` past `timeoutMs`; resolves true on a match.
   * A prepared `null` resolves false after the same work on `decoy` (see {@link VerifyWorkerInit}).
   */
  verify(job: VerifyJob | (() => Promise<VerifyJob | null>)): Promise<boolean>
  stats(): VerifyWorkerStats
  /** Terminates the worker; later calls reject `SERVICE_INTERNAL`. Idempotent. */
  close(): Promise<void>
}

/** Options of {@link createVerifyWorker}. */
export interface VerifyWorkerInit {
  /** Budget of one verification in the worker, ms (loginVerifyTimeoutMs; default 30000). */
  timeoutMs?: number
  /**
   * Cost of the decoy verification run when a prepared job is null (unknown name), so the
   * answer takes as long as for a real account. Default 64 MiB / 3 passes.
   */
  decoyCost?: ArgonCost
}

const DEFAULT_TIMEOUT_MS = 30_000
const DEFAULT_DECOY: ArgonCost = { opslimit: 3, memlimit: 64 * 1024 * 1024 }

/** A new worker must load sodium within this long (or the budget, if longer). */
const STARTUP_MS = 10_000

async function startedWithin (ready: Promise<void>, ms: number, onTimeout: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => { onTimeout(); reject(ServiceError.internal('verification worker did not start')) }, ms)
  })
  try {
    await Promise.race([ready, late])
  } finally {
    clearTimeout(timer)
  }
}

let sodiumPathCache: string | undefined

/**
 * sodium-native is @arus/crypto's dependency, not ours: resolve it from that package's
 * directory (found the way Node finds packages), so no copy of the path rules is needed.
 */
function sodiumPath (): string {
  if (sodiumPathCache !== undefined) return sodiumPathCache
  const here = createRequire(import.meta.url)
  for (const dir of here.resolve.paths('@arus/crypto') ?? []) {
    try {
      const pkg = realpathSync(join(dir, '@arus', 'crypto', 'package.json'))
      sodiumPathCache = createRequire(pkg).resolve('sodium-native')
      return sodiumPathCache
    } catch { /* not under this node_modules */ }
  }
  sodiumPathCache = here.resolve('sodium-native')
  return sodiumPathCache
}

export function createVerifyWorker (init: VerifyWorkerInit = {}): VerifyWorker {
  const timeoutMs = init.timeoutMs ?? DEFAULT_TIMEOUT_MS
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) throw ServiceError.invalidArgument('createVerifyWorker: timeoutMs must be a positive integer')
  const decoyCost = validateArgonCost(init.decoyCost ?? DEFAULT_DECOY)
  const stats: VerifyWorkerStats = { started: 0, completed: 0, busy: 0, timedOut: 0, replaced: 0, threadId: null }
  let worker: Worker | null = null
  let running = false
  let closed = false
  let nextId = 1
  /** The pending job's settle function; a crash or exit settles it with an error. */
  let pending: { id: number; settle: (r: { ok?: boolean; error?: Error }) => void } | null = null

  /** Resolves when the current worker has loaded sodium (the budget starts after that). */
  let ready: Promise<void> = Promise.resolve()

  const spawn = (): Worker => {
    const w = new Worker(VERIFY_THREAD_SOURCE, { eval: true, workerData: { sodiumPath: sodiumPath() } })
    w.unref()
    let markReady!: () => void
    let failStart!: (err: Error) => void
    ready = new Promise<void>((resolve, reject) => { markReady = resolve; failStart = reject })
    ready.catch(() => {})
    w.on('message', (m: { ready?: boolean; id?: number; ok?: boolean; error?: string }) => {
      if (m.ready === true) { markReady(); return }
      if (pending === null || pending.id !== m.id) return
      pending.settle(m.error === undefined ? { ok: m.ok === true } : { error: ServiceError.internal('password verification failed', new Error(m.error)) })
    })
    const lost = (why: string) => {
      failStart(ServiceError.internal(`verification worker ${why}`))
      if (worker !== w) return
      worker = null
      if (!closed) stats.replaced++
      pending?.settle({ error: ServiceError.internal(`verification worker ${why}`) })
    }
    w.on('error', () => lost('crashed'))
    w.on('exit', () => lost('exited'))
    worker = w
    stats.threadId = w.threadId
    return w
  }

  const replace = (): void => {
    const old = worker
    worker = null
    if (old) void old.terminate().catch(() => {})
    stats.replaced++
    if (!closed) spawn()
  }

  const run = async (job: VerifyJob): Promise<boolean> => {
    const cost = validateArgonCost(job.cost)
    const w = worker ?? spawn()
    await startedWithin(ready, Math.max(timeoutMs, STARTUP_MS), () => { if (worker === w) replace() })
    if (closed || worker !== w) throw ServiceError.internal('verification worker closed')
    return new Promise<boolean>((resolve, reject) => {
      const id = nextId++
      const timer = setTimeout(() => {
        if (pending?.id !== id) return
        pending = null
        stats.timedOut++
        replace()
        reject(ServiceError.verifyTimeout(timeoutMs))
      }, timeoutMs)
      pending = {
        id,
        settle: (r) => {
          if (pending?.id !== id) return
          pending = null
          clearTimeout(timer)
          if (r.error) { reject(r.error); return }
          stats.completed++
          resolve(r.ok === true)
        }
      }
      stats.started++
      w.postMessage({ id, input: job.input, salt: job.salt, opslimit: cost.opslimit, memlimit: cost.memlimit, verifier: job.verifier })
    })
  }

  const decoy = (): VerifyJob => ({ input: randomBytes(32), salt: randomBytes(16), cost: decoyCost, verifier: randomBytes(32) })

  // Start the thread now, so the first login does not pay for its start-up.
  spawn()

  return {
    get running () { return running },
    verify (job) {
      if (closed) return Promise.reject(ServiceError.internal('verification worker closed'))
      if (running) {
        stats.busy++
        return Promise.reject(ServiceError.verifyBusy())
      }
      running = true
      return (async () => {
        try {
          const prepared = typeof job === 'function' ? await job() : job
          if (prepared === null) {
            await run(decoy())
            return false
          }
          return await run(prepared)
        } finally {
          running = false
        }
      })()
    },
    stats: () => ({ ...stats }),
    async close () {
      if (closed) return
      closed = true
      const w = worker
      worker = null
      pending?.settle({ error: ServiceError.internal('verification worker closed') })
      if (w) await w.terminate().catch(() => {})
    }
  }
}

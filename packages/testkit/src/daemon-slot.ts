import type { SpawnedDaemon } from './daemons.js'
import { TestkitError } from './errors.js'
import { createHttpClient } from './http-client.js'
import type { HttpClient, HttpLogin } from './http-client.js'
import type { SpawnedProcess } from './process.js'

/** The restartable daemon process of a panel or broadcaster handle, and its API client. */
export interface DaemonSlot {
  readonly proc: SpawnedProcess | null
  /** The HTTP API's base URL while running with one, else `null`. */
  readonly url: string | null
  /** The API client. @throws TestkitError `TESTKIT_BAD_OPTION` while not running or without an HTTP API. */
  client(): HttpClient
  /** Starts the daemon unless it runs; concurrent calls share one start-up. */
  start(signal?: AbortSignal): Promise<void>
  /** Lets a start-up in flight end, thaws a frozen process, then stops it (SIGTERM, SIGKILL after 15 s). */
  stop(): Promise<void>
}

/**
 * A slot over `spawn`, whose API client logs in with `login`. Each start makes a new
 * client: the daemons listen on port 0, so a restart moves the URL.
 */
export function createDaemonSlot (what: string, spawn: (signal?: AbortSignal) => Promise<SpawnedDaemon>, login: HttpLogin): DaemonSlot {
  let proc: SpawnedProcess | null = null
  let http: HttpClient | null = null
  let starting: Promise<void> | null = null
  return {
    get proc () { return proc },
    get url () { return http?.url ?? null },
    client () {
      if (http === null) throw TestkitError.badOption(what, proc === null ? 'not running' : 'runs without an HTTP API')
      return http
    },
    start (signal) {
      if (proc !== null) return Promise.resolve()
      starting ??= spawn(signal).then((daemon) => {
        proc = daemon.proc
        http = daemon.url === null ? null : createHttpClient(daemon.url, { login })
      }).finally(() => { starting = null })
      return starting
    },
    async stop () {
      await starting?.catch(() => {})
      const running = proc
      proc = null
      http = null
      if (running === null) return
      // A frozen (SIGSTOP) process ignores SIGTERM until thawed; a SIGKILL would orphan its children (ffmpeg).
      if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGCONT')
      await running.stop('SIGTERM', 15_000)
    }
  }
}

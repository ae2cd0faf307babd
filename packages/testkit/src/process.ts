import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { TestkitError } from './errors.js'
import { registerTeardown } from './teardown.js'
import type { TestContextLike } from './teardown.js'
import { withTimeout } from './wait.js'

/** Options for {@link spawnProcess}. */
export interface SpawnInit {
  /** Extra environment, merged over `process.env`. */
  env?: Record<string, string | undefined>
  cwd?: string
  /** Hard life limit: SIGKILL after this long. Default: none (teardown still stops it). */
  timeoutMs?: number
  /** Written to stdin, which is then closed. Default: stdin ignored. */
  input?: string
  /** Appends stdout and stderr to this file (created 0600); closed when the process ends. */
  logFile?: string
  /** Runs the command inside this network namespace (`ip netns exec`, which execs: the pid is the command's). Needs root. */
  netns?: string
}

/** How a process ended. */
export interface ExitStatus {
  code: number | null
  signal: NodeJS.Signals | null
}

/** A running child process with line-oriented stdout. */
export interface SpawnedProcess {
  child: ChildProcess
  /** Complete stdout lines so far. */
  stdoutLines(): string[]
  /** All stderr so far. */
  stderrText(): string
  /** First stdout line, past or future, matching `regex`. Default bound 10000 ms. */
  waitForLine(regex: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>
  /** Resolves once the process has exited and its output is drained. Default bound 10000 ms. */
  waitForExit(timeoutMs?: number): Promise<ExitStatus>
  /** Sends `signal` (default SIGTERM), SIGKILL after `timeoutMs` (default 5000); resolves with the exit status. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<ExitStatus>
  /** Settles when the process ends, unbounded (for races such as "whichever dies first"). */
  readonly exited: Promise<ExitStatus>
}

const DEFAULT_WAIT_MS = 10_000
const DEFAULT_STOP_MS = 5000

/**
 * Spawns `cmd args` with piped stdout/stderr (stdin ignored unless `input`). On teardown the
 * process is stopped (SIGTERM, then SIGKILL after 5 s) if it is still running; a process
 * that ended on its own needs no teardown and leaves the pending list.
 */
export function spawnProcess (t: TestContextLike | undefined, cmd: string, args: readonly string[] = [], init: SpawnInit = {}): SpawnedProcess {
  const stdin = init.input === undefined ? 'ignore' : 'pipe'
  const [file, argv] = init.netns === undefined ? [cmd, args] : ['ip', ['netns', 'exec', init.netns, cmd, ...args]]
  const child = spawn(file, argv, { cwd: init.cwd, env: { ...process.env, ...init.env }, stdio: [stdin, 'pipe', 'pipe'] })
  child.stdin?.on('error', () => {}) // a child that exits without reading its input
  child.stdin?.end(init.input)
  const log = init.logFile === undefined ? null : createWriteStream(init.logFile, { flags: 'a', mode: 0o600 })
  log?.on('error', () => {})
  const closeLog = (): Promise<void> => new Promise((resolve) => { if (log === null) resolve(); else log.end(resolve) })
  const lines: string[] = []
  const lineListeners = new Set<() => void>()
  let stderr = ''
  let status: ExitStatus | null = null
  let spawnError: unknown = null

  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line)
    log?.write(`${line}\n`)
    for (const listener of lineListeners) listener()
  })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; log?.write(chunk) })
  // 'close' rather than 'exit': stdout is fully read by then, so stdoutLines() is final.
  const closed = new Promise<ExitStatus>((resolve, reject) => {
    child.once('error', (err) => { spawnError = err; closeLog().finally(() => reject(TestkitError.spawnFailed(cmd, err))).catch(() => {}) })
    child.once('close', (code, signal) => {
      status = { code, signal }
      for (const listener of lineListeners) listener()
      closeLog().finally(() => resolve({ code, signal })).catch(() => {})
    })
  })
  closed.catch(() => {}) // observed through waitForExit/stop; never an unhandled rejection

  const running = (): boolean => child.exitCode === null && child.signalCode === null && spawnError === null
  const describe = (): string => `${cmd} ${args.join(' ')}`.trim()

  const lifeLimit = init.timeoutMs === undefined ? null : setTimeout(() => { if (running()) child.kill('SIGKILL') }, init.timeoutMs)
  lifeLimit?.unref()
  closed.finally(() => { if (lifeLimit) clearTimeout(lifeLimit) }).catch(() => {})

  const waitForExit = (timeoutMs = DEFAULT_WAIT_MS): Promise<ExitStatus> =>
    withTimeout(closed, timeoutMs, `exit of ${describe()}`)

  const stop = async (signal: NodeJS.Signals = 'SIGTERM', timeoutMs = DEFAULT_STOP_MS): Promise<ExitStatus> => {
    if (spawnError !== null) return closed
    if (running()) child.kill(signal)
    try {
      return await withTimeout(closed, timeoutMs, `stop of ${describe()}`)
    } catch {
      child.kill('SIGKILL')
      return waitForExit(DEFAULT_STOP_MS)
    }
  }

  const waitForLine = (regex: RegExp, timeoutMs = DEFAULT_WAIT_MS): Promise<RegExpMatchArray> => {
    let listener: (() => void) | undefined
    const found = new Promise<RegExpMatchArray>((resolve, reject) => {
      let scanned = 0
      listener = () => {
        for (; scanned < lines.length; scanned++) {
          const match = (lines[scanned] as string).match(regex)
          if (match) { resolve(match); return }
        }
        if (status !== null) reject(TestkitError.processExited(`printing ${regex}`, `${JSON.stringify(status)}; stderr: ${stderr.slice(-500)}`))
        if (spawnError !== null) reject(TestkitError.spawnFailed(cmd, spawnError))
      }
      lineListeners.add(listener)
      listener()
    })
    return withTimeout(found, timeoutMs, () => `line ${regex} from ${describe()} (stderr: ${stderr.slice(-500)})`)
      .finally(() => { if (listener) lineListeners.delete(listener) })
  }

  const teardown = registerTeardown(t, async () => { await stop('SIGTERM', DEFAULT_STOP_MS).catch(() => {}) })
  closed.then(teardown, teardown).catch(() => {})
  return { child, stdoutLines: () => [...lines], stderrText: () => stderr, waitForLine, waitForExit, stop, exited: closed }
}

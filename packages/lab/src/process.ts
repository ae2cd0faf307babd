import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { LabError } from './errors.js'

/** The environment variable every lab process carries: its lab's id (found by it after a crash). */
export const LAB_ENV = 'ARUS_LAB'

export interface LabProcessInit {
  env?: Record<string, string | undefined>
  /** Appends stdout and stderr to this file. */
  logFile?: string
  /** Keep stdin open as a pipe (an agent reads commands from it). */
  stdin?: boolean
}

/** A process started inside a lab namespace, with line-oriented stdout. */
export interface LabProcess {
  readonly child: ChildProcess
  readonly ns: string
  lines(): string[]
  stderrText(): string
  /** The first stdout line, past or future, matching `regex` (bounded). */
  waitForLine(regex: RegExp, timeoutMs: number, what?: string): Promise<RegExpMatchArray>
  /** Calls `fn` with every stdout line from now on; returns the unsubscribe. */
  onLine(fn: (line: string) => void): () => void
  /** SIGTERM, SIGKILL after `graceMs`; resolves once it exited. */
  stop(graceMs?: number): Promise<void>
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** Spawns `cmd args` inside `ns` (`ip netns exec`, which execs: the pid is the command's). */
export function spawnInNs (labId: string, ns: string, cmd: string, args: readonly string[], init: LabProcessInit = {}): LabProcess {
  const child = spawn('ip', ['netns', 'exec', ns, cmd, ...args], {
    env: { ...process.env, ...init.env, [LAB_ENV]: labId },
    stdio: [init.stdin === true ? 'pipe' : 'ignore', 'pipe', 'pipe']
  })
  child.stdin?.on('error', () => {})
  const log = init.logFile === undefined ? null : createWriteStream(init.logFile, { flags: 'a', mode: 0o600 })
  log?.on('error', () => {})
  const lines: string[] = []
  let stderr = ''
  const listeners = new Set<(line: string) => void>()
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line)
    if (lines.length > 5_000) lines.splice(0, 1_000)
    log?.write(`${line}\n`)
    for (const fn of listeners) fn(line)
  })
  child.stderr!.on('data', (d: Buffer) => {
    const text = d.toString()
    stderr = (stderr + text).slice(-64 * 1024)
    log?.write(text)
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => { resolve({ code, signal }) })
    child.once('error', () => { resolve({ code: null, signal: null }) })
  })
  void exited.then(() => log?.end())
  const onLine = (fn: (line: string) => void): () => void => { listeners.add(fn); return () => { listeners.delete(fn) } }
  return {
    child,
    ns,
    lines: () => [...lines],
    stderrText: () => stderr,
    onLine,
    exited,
    waitForLine (regex, timeoutMs, what) {
      for (const l of lines) { const m = l.match(regex); if (m) return Promise.resolve(m) }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => { off(); reject(LabError.timeout(`${what ?? String(regex)} in ${ns} (stderr: ${stderr.trim().slice(-400)})`, timeoutMs)) }, timeoutMs)
        const off = onLine((l) => { const m = l.match(regex); if (m) { clearTimeout(timer); off(); resolve(m) } })
        void exited.then((st) => {
          clearTimeout(timer)
          off()
          reject(LabError.commandFailed(`${cmd} in ${ns}`, `exited ${st.code ?? st.signal} before ${what ?? String(regex)}: ${stderr.trim().slice(-400)}`))
        })
      })
    },
    async stop (graceMs = 5_000) {
      if (child.exitCode !== null || child.signalCode !== null) { await exited; return }
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
      await exited
      clearTimeout(timer)
    }
  }
}

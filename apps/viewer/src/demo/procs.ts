import { spawn, type ChildProcess } from 'node:child_process'
import { createWriteStream, type WriteStream } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

/** A child process of the demo: stdout lines kept (and, with stderr, written to <logs>/<name>.log). */
export interface DemoProcess {
  readonly name: string
  readonly child: ChildProcess
  readonly log: string
  /** First stdout line matching `re`, past or future; rejects when the process exits or after `ms`. */
  waitForLine(re: RegExp, ms: number): Promise<RegExpMatchArray>
  /** SIGTERM (or `signal`), SIGKILL after `ms`; resolves once it has exited. */
  stop(signal?: NodeJS.Signals, ms?: number): Promise<void>
  readonly exited: Promise<number | null>
}

export function startProcess (name: string, args: string[], init: { env: Record<string, string>; logs: string; input?: string }): DemoProcess {
  const log = join(init.logs, `${name}.log`)
  const file: WriteStream = createWriteStream(log, { flags: 'a', mode: 0o600 })
  const child = spawn(process.execPath, args, { env: { ...process.env, ...init.env }, stdio: ['pipe', 'pipe', 'pipe'] })
  if (init.input !== undefined) child.stdin?.end(init.input)
  else child.stdin?.end()
  const lines: string[] = []
  const waiters = new Set<() => void>()
  createInterface({ input: child.stdout! }).on('line', (line) => {
    file.write(line + '\n')
    if (lines.length < 5000) lines.push(line)
    for (const w of [...waiters]) w()
  })
  child.stderr!.on('data', (chunk: Buffer) => file.write(chunk))
  const exited = new Promise<number | null>((resolve) => {
    child.on('error', () => resolve(null))
    child.on('close', (code) => { file.end(); for (const w of [...waiters]) w(); resolve(code) })
  })
  return {
    name,
    child,
    log,
    exited,
    waitForLine (re, ms) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          for (const line of lines) {
            const m = re.exec(line)
            if (m !== null) { done(); resolve(m); return }
          }
          if (child.exitCode !== null || child.signalCode !== null) { done(); reject(new Error(`${name} exited (see ${log})`)) }
        }
        const timer = setTimeout(() => { done(); reject(new Error(`${name}: no ${re} within ${ms} ms (see ${log})`)) }, ms)
        const done = (): void => { clearTimeout(timer); waiters.delete(check) }
        waiters.add(check)
        check()
      })
    },
    async stop (signal = 'SIGTERM', ms = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill(signal)
      const timer = setTimeout(() => child.kill('SIGKILL'), ms)
      await exited
      clearTimeout(timer)
    }
  }
}

/** Runs a one-shot command; resolves its exit code and output. */
export function runOnce (args: string[], init: { env: Record<string, string>; input?: string }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...init.env }, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (s: string) => { stdout += s })
    child.stderr.setEncoding('utf8').on('data', (s: string) => { stderr += s })
    child.stdin.end(init.input ?? '')
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.on('error', (err) => resolve({ code: null, stdout, stderr: stderr + err.message }))
  })
}

/** A TCP port free on 127.0.0.1 a moment ago. */
export function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address()
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0
      server.close(() => resolve(port))
    })
  })
}

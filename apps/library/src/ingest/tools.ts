import { spawn } from 'node:child_process'

/** One finished run of ffprobe (or a short ffmpeg): output, exit code, whether it was cut off. */
export interface ToolResult { code: number | null; stdout: string; stderr: string; timedOut: boolean }

/**
 * Runs a tool with an argument vector (never a shell, so an input path with spaces or shell
 * metacharacters is one argument), bounded by `timeoutMs` and an abort signal; output capped.
 */
export function runTool (cmd: string, args: string[], init: { timeoutMs: number; signal?: AbortSignal; prefix?: readonly string[] }): Promise<ToolResult> {
  return new Promise((resolve) => {
    const prefix = init.prefix ?? []
    const child = spawn(prefix[0] ?? cmd, [...prefix.slice(1), ...(prefix.length > 0 ? [cmd] : []), ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let timedOut = false
    const cap = (s: string, more: Buffer) => (s.length > 1_000_000 ? s : s + more.toString())
    child.stdout.on('data', (b: Buffer) => { stdout = cap(stdout, b) })
    child.stderr.on('data', (b: Buffer) => { stderr = cap(stderr, b) })
    const kill = () => { if (child.exitCode === null) child.kill('SIGKILL') }
    const timer = setTimeout(() => { timedOut = true; kill() }, init.timeoutMs)
    init.signal?.addEventListener('abort', kill, { once: true })
    child.on('error', (err) => { stderr += String(err.message) })
    child.on('close', (code) => {
      clearTimeout(timer)
      init.signal?.removeEventListener('abort', kill)
      resolve({ code, stdout, stderr, timedOut })
    })
  })
}

/** The last meaningful stderr line (ffmpeg puts the reason last). */
export function lastLine (text: string): string | undefined {
  return text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).pop()
}

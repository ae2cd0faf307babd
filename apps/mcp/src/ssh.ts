import { spawn } from 'node:child_process'
import { sshArgs, type SshTarget } from './tunnel.js'

/** A word quoted for the remote POSIX shell. */
export const shq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`

export interface SshResult { code: number; stdout: string; stderr: string }

/**
 * Runs one command on the box over SSH (batch mode, key only). `argv` is quoted word by word,
 * so an argument is never a shell fragment; a script runs as `sh -c <script> sh <args...>`.
 * Bounded in time and output.
 */
export function sshExec (t: SshTarget, argv: readonly string[], init: { input?: string; timeoutMs?: number } = {}): Promise<SshResult> {
  return new Promise((resolve) => {
    const child = spawn('ssh', [...sshArgs(t, []), '--', argv.map(shq).join(' ')], { stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    const cap = 4 << 20
    child.stdout.on('data', (d: Buffer) => { if (stdout.length < cap) stdout += d.toString() })
    child.stderr.on('data', (d: Buffer) => { if (stderr.length < cap) stderr += d.toString() })
    const timer = setTimeout(() => { child.kill('SIGKILL') }, init.timeoutMs ?? 120_000)
    child.on('close', (code, signal) => { clearTimeout(timer); resolve({ code: code ?? (signal ? 124 : 1), stdout, stderr }) })
    child.stdin.end(init.input ?? '')
  })
}

/** `sh -c <script> sh <args...>` as an argv for {@link sshExec}. */
export const script = (body: string, ...args: string[]): string[] => ['sh', '-c', body, 'sh', ...args]

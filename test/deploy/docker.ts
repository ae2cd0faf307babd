import { execFile, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** The repository root (compose files and scripts are addressed from it). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
/** The classic builder's client (Debian docker.io); DOCKER overrides. */
export const DOCKER = process.env.DOCKER ?? '/usr/bin/docker'

export interface Run { code: number | null; stdout: string; stderr: string; ms: number }

/** Runs a command from the repository root, bounded in time; never rejects on a non-zero exit. */
export function run (cmd: string, args: readonly string[], init: { env?: Record<string, string>; input?: string; timeoutMs?: number } = {}): Promise<Run> {
  const started = Date.now()
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { cwd: ROOT, env: { ...process.env, DOCKER_BUILDKIT: '0', DOCKER, ...init.env }, timeout: init.timeoutMs ?? 300_000, maxBuffer: 64 << 20, killSignal: 'SIGKILL' },
      (err, stdout, stderr) => resolve({ code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0, stdout, stderr, ms: Date.now() - started }))
    if (init.input !== undefined) child.stdin?.end(init.input)
    else child.stdin?.end()
  })
}

/** Like {@link run}, and throws with stderr when the command fails. */
export async function must (cmd: string, args: readonly string[], init: Parameters<typeof run>[2] = {}): Promise<Run> {
  const r = await run(cmd, args, init)
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}:\n${r.stderr.slice(-4000)}\n${r.stdout.slice(-2000)}`)
  return r
}

/** Streams a long command's output to the test log (image builds). */
export function stream (cmd: string, args: readonly string[], env: Record<string, string>, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, DOCKER_BUILDKIT: '0', ...env }, stdio: ['ignore', 'inherit', 'inherit'] })
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${cmd} ${args.join(' ')}: over ${timeoutMs} ms`)) }, timeoutMs)
    child.on('exit', (code) => { clearTimeout(timer); resolve(code ?? 1) })
  })
}

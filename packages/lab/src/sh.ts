import { execFile } from 'node:child_process'
import { LabError } from './errors.js'

const DEFAULT_TIMEOUT_MS = 15_000

/** Runs one command to its end (bounded); resolves stdout. @throws LabError `LAB_COMMAND_FAILED` naming the command and its stderr. */
export function sh (cmd: string, args: readonly string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(cmd, args, { timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: 4 << 20 }, (err, stdout, stderr) => {
      if (err) reject(LabError.commandFailed(`${cmd} ${args.join(' ')}`, String(stderr).trim() || err.message))
      else resolve(String(stdout))
    })
    if (opts.input !== undefined) child.stdin?.end(opts.input)
  })
}

/** `ip -n <ns> <args…>`. */
export const ipn = (ns: string, ...args: string[]): Promise<string> => sh('ip', ['-n', ns, ...args])

/** Runs a command inside a namespace (`ip netns exec`). */
export const inNs = (ns: string, cmd: string, args: readonly string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<string> =>
  sh('ip', ['netns', 'exec', ns, cmd, ...args], opts)

/** A sysctl inside a namespace. */
export const sysctl = (ns: string, key: string, value: string | number): Promise<string> => inNs(ns, 'sysctl', ['-qw', `${key}=${value}`])

/** Names of the network namespaces on this machine. */
export async function listNamespaces (): Promise<string[]> {
  const out = await sh('ip', ['netns', 'list'])
  return out.split('\n').map((l) => l.trim().split(/\s+/)[0] ?? '').filter((n) => n !== '')
}

/** Pids of the processes inside a namespace. */
export async function namespacePids (ns: string): Promise<number[]> {
  const out = await sh('ip', ['netns', 'pids', ns]).catch(() => '')
  return out.split('\n').map((l) => Number(l.trim())).filter((n) => Number.isInteger(n) && n > 0)
}

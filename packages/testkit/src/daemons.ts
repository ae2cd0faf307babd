import { randomBytes } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { TestkitError } from './errors.js'
import { spawnProcess } from './process.js'
import type { SpawnedProcess } from './process.js'
import type { TestContextLike } from './teardown.js'

// The same depth from src/ and dist/: packages/testkit/<dir>/ → the repository root. The
// bins are found by path, not as dependencies: the apps devDepend on this package.
const root = fileURLToPath(new URL('../../../', import.meta.url))

/** Paths of the workspace's built daemon bins (they run `dist/`: build first). */
export const ARUS_BINS = {
  panel: join(root, 'apps', 'panel', 'bin', 'arus-panel.js'),
  broadcaster: join(root, 'apps', 'broadcaster', 'bin', 'arus-broadcaster.js'),
  library: join(root, 'apps', 'library', 'bin', 'arus-library.js'),
  reseller: join(root, 'apps', 'reseller', 'bin', 'arus-reseller.js'),
  repeater: join(root, 'apps', 'repeater', 'bin', 'arus-repeater.js'),
  mcp: join(root, 'apps', 'mcp', 'bin', 'arus-mcp.js'),
  testnet: join(root, 'packages', 'swarm', 'bin', 'arus-testnet.js')
} as const

/** Output of a one-shot command. */
export interface CliResult {
  code: number | null
  /** The signal that ended it (e.g. `SIGKILL` past the bound), else `null`. */
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** Options for {@link runBin}. */
export interface RunBinInit {
  /** Extra environment, merged over `process.env`. */
  env?: Record<string, string | undefined>
  /** Written to stdin, which is then closed (e.g. a password line). Default: empty. */
  input?: string
  /** Bound on the whole run; the process is killed after it. Default 60000 ms. */
  timeoutMs?: number
  /** Stops the command; the call then rejects with the signal's reason. */
  signal?: AbortSignal
  /** Runs it inside this network namespace (a network lab, `@arus/lab`). */
  netns?: string
}

/**
 * Runs `fn` over a process this module started: an abort of `signal` stops the process, and
 * any failure stops it before rethrowing (the abort's reason when aborted), so a failed
 * start never leaves a daemon behind.
 */
async function owning<T> (proc: SpawnedProcess, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
  const onAbort = (): void => { proc.stop().catch(() => {}) }
  signal?.addEventListener('abort', onAbort, { once: true })
  try {
    const value = await fn()
    signal?.throwIfAborted()
    return value
  } catch (err) {
    await proc.stop().catch(() => {})
    throw signal?.aborted === true ? signal.reason : err
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
}

/** Runs `node <bin> <args>` to its end (bounded); resolves its exit status and output. */
export async function runBin (bin: string, args: readonly string[], init: RunBinInit = {}): Promise<CliResult> {
  init.signal?.throwIfAborted()
  const timeoutMs = init.timeoutMs ?? 60_000
  const proc = spawnProcess(undefined, process.execPath, [bin, ...args], { env: init.env, input: init.input ?? '', timeoutMs, ...(init.netns === undefined ? {} : { netns: init.netns }) })
  const { code, signal } = await owning(proc, init.signal, () => proc.waitForExit(timeoutMs + 5000))
  return { code, signal, stdout: proc.stdoutLines().join('\n'), stderr: proc.stderrText() }
}

/**
 * {@link runBin} with `--json` first; parses stdout (`null` when empty).
 * @throws Error naming the command, its exit status and stderr when it does not exit 0.
 */
export async function runBinJson<T = any> (bin: string, args: readonly string[], init: RunBinInit = {}): Promise<T> {
  const r = await runBin(bin, ['--json', ...args], init)
  if (r.code !== 0) throw new Error(`${bin} ${args.join(' ')} exited ${r.code ?? r.signal}: ${r.stderr.trim() || r.stdout.trim()}`)
  return (r.stdout.trim() === '' ? null : JSON.parse(r.stdout)) as T
}

/** Options of the daemon starters: where to tee the output, how long start-up may take. */
export interface DaemonInit {
  /** Appends the process's stdout and stderr to this file (its directory must exist). */
  logFile?: string
  /** Bound on each ready line. Default 30000 ms. */
  readyTimeoutMs?: number
  /** Stops the start-up (and the process); the call then rejects with the signal's reason. */
  signal?: AbortSignal
  /**
   * Runs the daemon inside this network namespace (a network lab, `@arus/lab`); its HTTP
   * URL is then one of that namespace's loopback and needs {@link DaemonInit.exposeUrl}.
   */
  netns?: string
  /** Maps the daemon's own HTTP URL to one this process can reach (a lab's `expose`). */
  exposeUrl?: (url: string) => Promise<string>
}

/** A started daemon process and the URL of its HTTP server, when it has one. */
export interface SpawnedDaemon {
  proc: SpawnedProcess
  url: string | null
}

// The ready lines are logged at info: at these levels a start-up could only time out.
const QUIET_LEVELS = new Set(['warn', 'error', 'fatal', 'silent'])

const spawnBin = (t: TestContextLike | undefined, bin: string, args: string[], env: Record<string, string>, init: DaemonInit): SpawnedProcess => {
  init.signal?.throwIfAborted()
  return spawnProcess(t, process.execPath, [bin, ...args], { env, logFile: init.logFile, ...(init.netns === undefined ? {} : { netns: init.netns }) })
}

/** The daemon's URL as this process reaches it. */
const reachable = async (url: string | null, init: DaemonInit): Promise<string | null> =>
  url === null || init.exposeUrl === undefined ? url : init.exposeUrl(url)

/** The env of a daemon whose ready line is read: JSON logs (the default is pretty), at info or below. */
const loggingEnv = (env: Record<string, string>): Record<string, string> => {
  const level = env.LOG_LEVEL ?? process.env.LOG_LEVEL
  if (level !== undefined && QUIET_LEVELS.has(level)) throw TestkitError.badOption('LOG_LEVEL', `${level} hides the ready line (logged at info)`)
  return { ...env, LOG_FORMAT: 'json' }
}

const field = (line: RegExpMatchArray, name: string): string | null => {
  const value = (JSON.parse(line.input ?? '{}') as Record<string, unknown>)[name]
  return typeof value === 'string' ? value : null
}

/**
 * Starts `arus-panel run` (logs forced to JSON) and waits for `panel.ready`; with `admin`,
 * also for `admin.listening`, whose `url` it returns. A failed start-up stops the process.
 */
export async function spawnPanelDaemon (t: TestContextLike | undefined, env: Record<string, string>, init: DaemonInit & { admin?: boolean } = {}): Promise<SpawnedDaemon> {
  const ms = init.readyTimeoutMs ?? 30_000
  const proc = spawnBin(t, ARUS_BINS.panel, ['run'], loggingEnv(env), init)
  return owning(proc, init.signal, async () => {
    await proc.waitForLine(/"event":"panel\.ready"/, ms)
    if (init.admin !== true) return { proc, url: null }
    return { proc, url: await reachable(field(await proc.waitForLine(/"event":"admin\.listening"/, ms), 'url'), init) }
  })
}

/**
 * Starts `arus-broadcaster run` (logs forced to JSON) and waits for `broadcaster.ready`; the
 * URL is its `controlUrl` (`null` without CONTROL_ENABLED=1). A failed start-up stops the process.
 */
export async function spawnBroadcasterDaemon (t: TestContextLike | undefined, env: Record<string, string>, init: DaemonInit = {}): Promise<SpawnedDaemon> {
  const proc = spawnBin(t, ARUS_BINS.broadcaster, ['run'], loggingEnv(env), init)
  return owning(proc, init.signal, async () =>
    ({ proc, url: await reachable(field(await proc.waitForLine(/"event":"broadcaster\.ready"/, init.readyTimeoutMs ?? 30_000), 'controlUrl'), init) }))
}

/**
 * Starts `arus-library run` (logs forced to JSON) and waits for `library.ready`; the URL is its
 * `controlUrl` (`null` without CONTROL_ENABLED=1). A failed start-up stops the process.
 */
export async function spawnLibraryDaemon (t: TestContextLike | undefined, env: Record<string, string>, init: DaemonInit = {}): Promise<SpawnedDaemon> {
  const proc = spawnBin(t, ARUS_BINS.library, ['run'], loggingEnv(env), init)
  return owning(proc, init.signal, async () =>
    ({ proc, url: field(await proc.waitForLine(/"event":"library\.ready"/, init.readyTimeoutMs ?? 30_000), 'controlUrl') }))
}

/**
 * Starts `arus-reseller run` (logs forced to JSON) and waits for `reseller.ready`; the URL is its
 * `controlUrl`. A failed start-up stops the process.
 */
export async function spawnResellerDaemon (t: TestContextLike | undefined, env: Record<string, string>, init: DaemonInit = {}): Promise<SpawnedDaemon> {
  const proc = spawnBin(t, ARUS_BINS.reseller, ['run'], loggingEnv(env), init)
  return owning(proc, init.signal, async () =>
    ({ proc, url: field(await proc.waitForLine(/"event":"reseller\.ready"/, init.readyTimeoutMs ?? 30_000), 'controlUrl') }))
}

/**
 * Starts `arus-repeater run` (logs forced to JSON) and waits for `repeater.ready`; the URL is its
 * status server's (`null` with STATUS_PORT=0). A failed start-up stops the process.
 */
export async function spawnRepeaterDaemon (t: TestContextLike | undefined, env: Record<string, string>, init: DaemonInit = {}): Promise<SpawnedDaemon> {
  const proc = spawnBin(t, ARUS_BINS.repeater, ['run'], loggingEnv(env), init)
  return owning(proc, init.signal, async () =>
    ({ proc, url: await reachable(field(await proc.waitForLine(/"event":"repeater\.ready"/, init.readyTimeoutMs ?? 30_000), 'statusUrl'), init) }))
}

/**
 * Starts `arus-testnet --host 127.0.0.1` (a DHT in its own process) and waits for its
 * `BOOTSTRAP=` line. A failed start-up stops the process.
 */
export async function spawnTestnetDaemon (t: TestContextLike | undefined, init: DaemonInit = {}): Promise<{ proc: SpawnedProcess; bootstrap: string }> {
  const proc = spawnBin(t, ARUS_BINS.testnet, ['--host', '127.0.0.1'], {}, init)
  return owning(proc, init.signal, async () =>
    ({ proc, bootstrap: (await proc.waitForLine(/^BOOTSTRAP=(\S+)$/, init.readyTimeoutMs ?? 30_000))[1] as string }))
}

/** A generated password: no test reuses a fixed one by accident. */
export const secret = (): string => randomBytes(9).toString('base64url')

/** The {@link DaemonInit} of a starter: its ready bound and `<logs>/<name>.log` (the directory created). */
export function daemonInit (init: { logs?: string; readyTimeoutMs?: number }, name: string): DaemonInit {
  const out: DaemonInit = { readyTimeoutMs: init.readyTimeoutMs ?? 30_000 }
  if (init.logs !== undefined) {
    mkdirSync(init.logs, { recursive: true, mode: 0o700 })
    out.logFile = join(init.logs, `${name}.log`)
  }
  return out
}

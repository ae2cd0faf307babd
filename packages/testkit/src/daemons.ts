import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
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
  testnet: join(root, 'packages', 'swarm', 'bin', 'arus-testnet.js')
} as const

/** Output of a one-shot command. */
export interface CliResult { code: number | null; stdout: string; stderr: string }

/** Options for {@link runBin}. */
export interface RunBinInit {
  env?: Record<string, string | undefined>
  /** Written to stdin (e.g. a password line). */
  input?: string
  /** Bound on the whole run; the process is killed after it. Default 60000 ms. */
  timeoutMs?: number
}

/** Runs `node <bin> <args>` to its end (bounded); resolves its exit code and output. */
export async function runBin (bin: string, args: readonly string[], init: RunBinInit = {}): Promise<CliResult> {
  const timeoutMs = init.timeoutMs ?? 60_000
  const proc = spawnProcess(undefined, process.execPath, [bin, ...args], { env: init.env, input: init.input ?? '', timeoutMs })
  const { code } = await proc.waitForExit(timeoutMs + 5000)
  return { code, stdout: proc.stdoutLines().join('\n'), stderr: proc.stderrText() }
}

/**
 * {@link runBin} with `--json` first; parses stdout (`null` when empty).
 * @throws Error naming the command, its exit code and stderr on a non-zero exit.
 */
export async function runBinJson<T = any> (bin: string, args: readonly string[], init: RunBinInit = {}): Promise<T> {
  const r = await runBin(bin, ['--json', ...args], init)
  if (r.code !== 0) throw new Error(`${bin} ${args.join(' ')} exited ${r.code}: ${r.stderr.trim() || r.stdout.trim()}`)
  return (r.stdout.trim() === '' ? null : JSON.parse(r.stdout)) as T
}

/** Options of the daemon starters: where to tee the output, how long start-up may take. */
export interface DaemonInit {
  /** Appends the process's stdout and stderr to this file. */
  logFile?: string
  /** Bound on each ready line. Default 30000 ms. */
  readyTimeoutMs?: number
}

/** A started daemon process and the URL of its HTTP server, when it has one. */
export interface SpawnedDaemon {
  proc: SpawnedProcess
  url: string | null
}

const spawnBin = (t: TestContextLike | undefined, bin: string, args: string[], env: Record<string, string>, init: DaemonInit): SpawnedProcess =>
  spawnProcess(t, process.execPath, [bin, ...args], { env, ...(init.logFile === undefined ? {} : { logFile: init.logFile }) })

/**
 * Starts `arus-panel run` and waits for `panel.ready`; with `admin`, also for
 * `admin.listening`, whose `url` it returns.
 */
export async function spawnPanelDaemon (t: TestContextLike | undefined, env: Record<string, string>, init: DaemonInit & { admin?: boolean } = {}): Promise<SpawnedDaemon> {
  const ms = init.readyTimeoutMs ?? 30_000
  const proc = spawnBin(t, ARUS_BINS.panel, ['run'], env, init)
  await proc.waitForLine(/"event":"panel\.ready"/, ms)
  if (init.admin !== true) return { proc, url: null }
  const line = await proc.waitForLine(/"event":"admin\.listening"/, ms)
  return { proc, url: (JSON.parse(line.input ?? '{}') as { url: string }).url }
}

/** Starts `arus-broadcaster run` and waits for `broadcaster.ready` (its `controlUrl`, if any). */
export async function spawnBroadcasterDaemon (t: TestContextLike | undefined, env: Record<string, string>, init: DaemonInit = {}): Promise<SpawnedDaemon> {
  const proc = spawnBin(t, ARUS_BINS.broadcaster, ['run'], env, init)
  const line = await proc.waitForLine(/"event":"broadcaster\.ready"/, init.readyTimeoutMs ?? 30_000)
  return { proc, url: (JSON.parse(line.input ?? '{}') as { controlUrl?: string }).controlUrl ?? null }
}

/** Starts `arus-testnet --host 127.0.0.1` (a DHT in its own process) and waits for its `BOOTSTRAP=` line. */
export async function spawnTestnetDaemon (t: TestContextLike | undefined, init: DaemonInit = {}): Promise<{ proc: SpawnedProcess; bootstrap: string }> {
  const proc = spawnBin(t, ARUS_BINS.testnet, ['--host', '127.0.0.1'], {}, init)
  const m = await proc.waitForLine(/^BOOTSTRAP=(\S+)$/, init.readyTimeoutMs ?? 30_000)
  return { proc, bootstrap: m[1] as string }
}

import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fromHex } from '@arus/crypto'
import { ARUS_BINS, PANEL_TEST_ENV, runCliInProcess, spawnPanelDaemon, type InProcessResult, type SpawnedProcess, type TestContextLike } from '@arus/testkit'
import { runCli } from '../src/cli.js'

export const PANEL_BIN = ARUS_BINS.panel

/** Env for a test panel: cheap Argon2id and proof of work (testkit's PANEL_TEST_ENV), JSON logs. */
export function panelEnv (dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { DATA_DIR: dataDir, ...PANEL_TEST_ENV, LOG_FORMAT: 'json', ...extra }
}

export type CliResult = InProcessResult

/** Runs one `arus-panel` command in-process (same program as the bin), stdin from `input`. */
export function cli (env: Record<string, string>, args: string[], input = ''): Promise<CliResult> {
  return runCliInProcess(runCli, 'arus-panel', args, { env, input })
}

/** Like `cli` but fails the test on a non-zero exit; parses --json output. */
export async function cliJson<T = any> (env: Record<string, string>, args: string[], input = ''): Promise<T> {
  const r = await cli(env, ['--json', ...args], input)
  if (r.code !== 0) throw new Error(`arus-panel ${args.join(' ')} exited ${r.code}: ${r.stderr}`)
  return JSON.parse(r.stdout) as T
}

export async function initPanel (env: Record<string, string>): Promise<{ panelKey: string; pairingCode: string }> {
  return cliJson(env, ['init'])
}

export async function legacyPublisherKey (dataDir: string): Promise<Uint8Array> {
  return fromHex((await readFile(join(dataDir, 'private', 'legacy-publisher.key'), 'utf8')).trim(), 64)
}

/** Starts `arus-panel run` as a separate process (testkit's spawnPanelDaemon) and waits for its ready line. */
export async function spawnPanel (t: TestContextLike | undefined, env: Record<string, string>): Promise<SpawnedProcess> {
  return (await spawnPanelDaemon(t, env, { readyTimeoutMs: 20_000 })).proc
}

export { linkToPanel, type PanelLink } from '@arus/testkit'

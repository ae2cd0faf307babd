import { ARUS_BINS, BROADCASTER_TEST_ENV, createHttpClient, LIGHT_CHANNEL, runCliInProcess, spawnBroadcasterDaemon, type HttpReply, type InProcessResult, type SpawnedProcess, type TestContextLike } from '@arus/testkit'
import { runCli } from '../src/cli.js'

export const BROADCASTER_BIN = ARUS_BINS.broadcaster

/** Env for a test broadcaster (testkit's BROADCASTER_TEST_ENV): cheap Argon2id, JSON logs, short segments and backoffs. */
export function broadcasterEnv (dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { DATA_DIR: dataDir, ...BROADCASTER_TEST_ENV, LOG_FORMAT: 'json', ...extra }
}

/** The `test` pattern kept light (testkit's LIGHT_CHANNEL without its input): 320x180, ultrafast, 1 s segments. */
export const LIGHT = { transcode: { ...LIGHT_CHANNEL.transcode }, hlsTime: LIGHT_CHANNEL.hlsTime, hlsListSize: LIGHT_CHANNEL.hlsListSize }

export type CliResult = InProcessResult

/** Runs one `arus-broadcaster` command in-process (same program as the bin), stdin from `input`. */
export function cli (env: Record<string, string>, args: string[], input = ''): Promise<CliResult> {
  return runCliInProcess(runCli, 'arus-broadcaster', args, { env, input })
}

export interface SpawnedBroadcaster { proc: SpawnedProcess; url: string }

/** Starts `arus-broadcaster run` as a separate process (testkit's spawnBroadcasterDaemon) and waits for its ready line. */
export async function spawnBroadcaster (t: TestContextLike | undefined, env: Record<string, string>): Promise<SpawnedBroadcaster> {
  const { proc, url } = await spawnBroadcasterDaemon(t, env)
  if (url !== null) return { proc, url }
  await proc.stop()
  throw new Error('arus-broadcaster started without its control API: set CONTROL_ENABLED=1')
}

export type ApiReply<T = any> = HttpReply<T>

/** A tiny client of the control API (on testkit's createHttpClient). */
export function apiClient (url: string, token: string | null = null) {
  const http = createHttpClient(url, { token })
  const call = <T = any>(method: string, path: string, body?: unknown): Promise<ApiReply<T>> => http.call<T>(method, path, body)
  return {
    call,
    get: <T = any>(path: string) => call<T>('GET', path),
    post: <T = any>(path: string, body?: unknown) => call<T>('POST', path, body),
    patch: <T = any>(path: string, body?: unknown) => call<T>('PATCH', path, body),
    del: <T = any>(path: string) => call<T>('DELETE', path),
    async login (username: string, password: string) {
      return apiClient(url, await http.login(username, password))
    }
  }
}

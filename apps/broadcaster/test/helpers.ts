import { Readable, Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { spawnProcess, type SpawnedProcess, type TestContextLike } from '@arus/testkit'
import { runCli } from '../src/cli.js'

export const BROADCASTER_BIN = fileURLToPath(new URL('../bin/arus-broadcaster.js', import.meta.url))

/** Env for a test broadcaster: cheap Argon2id, JSON logs, short segments and backoffs. */
export function broadcasterEnv (dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    ARGON2_MEM_KIB: '8',
    ARGON2_OPS: '1',
    LOG_FORMAT: 'json',
    HLS_TIME: '1',
    RESPAWN_MIN_MS: '200',
    RESPAWN_MAX_MS: '1000',
    RESUME_PACE: '0',
    ...extra
  }
}

/** The `test` pattern kept light: 320x180, ultrafast, 1 s segments. */
export const LIGHT = { transcode: { width: 320, height: 180, preset: 'ultrafast' }, hlsTime: 1, hlsListSize: 4 }

export interface CliResult { code: number; stdout: string; stderr: string }

/** Runs one `arus-broadcaster` command in-process, stdin from `input`. */
export async function cli (env: Record<string, string>, args: string[], input = ''): Promise<CliResult> {
  let stdout = ''
  let stderr = ''
  const sink = (append: (s: string) => void) => new Writable({ write (chunk, _enc, cb) { append(String(chunk)); cb() } })
  const code = await runCli(['node', 'arus-broadcaster', ...args], {
    stdout: sink((s) => { stdout += s }),
    stderr: sink((s) => { stderr += s }),
    stdin: Readable.from(input ? [input] : []),
    env
  })
  return { code, stdout, stderr }
}

export interface SpawnedBroadcaster { proc: SpawnedProcess; url: string }

/** Starts `arus-broadcaster run` as a separate process and waits for its ready line. */
export async function spawnBroadcaster (t: TestContextLike | undefined, env: Record<string, string>): Promise<SpawnedBroadcaster> {
  const proc = spawnProcess(t, process.execPath, [BROADCASTER_BIN, 'run'], { env })
  const m = await proc.waitForLine(/"event":"broadcaster.ready".*"controlUrl":"([^"]+)"/, 30_000)
  return { proc, url: m[1]! }
}

export interface ApiReply<T = any> { status: number; body: T }

/** A tiny client of the control API. */
export function apiClient (url: string, token: string | null = null) {
  const call = async <T = any>(method: string, path: string, body?: unknown): Promise<ApiReply<T>> => {
    const res = await fetch(url + path, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {})
    })
    const text = await res.text()
    return { status: res.status, body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text as T }
  }
  return {
    call,
    get: <T = any>(path: string) => call<T>('GET', path),
    post: <T = any>(path: string, body?: unknown) => call<T>('POST', path, body),
    patch: <T = any>(path: string, body?: unknown) => call<T>('PATCH', path, body),
    del: <T = any>(path: string) => call<T>('DELETE', path),
    async login (username: string, password: string) {
      const r = await call<{ token: string }>('POST', '/api/login', { username, password })
      if (r.status !== 200) throw new Error(`login failed: ${r.status} ${JSON.stringify(r.body)}`)
      return apiClient(url, r.body.token)
    }
  }
}

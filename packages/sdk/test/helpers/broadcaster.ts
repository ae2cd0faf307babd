import { startBroadcaster as startKitBroadcaster, type HttpReply, type SpawnedProcess, type TestContextLike } from '@arus/testkit'
import type { Stack } from './stack.js'

/** The control API as `{ status, body }` replies (never throws on the status). */
export interface ControlApi {
  get<T = any>(path: string): Promise<HttpReply<T>>
  post<T = any>(path: string, body?: unknown): Promise<HttpReply<T>>
  patch<T = any>(path: string, body?: unknown): Promise<HttpReply<T>>
  del<T = any>(path: string): Promise<HttpReply<T>>
}

/** A running `arus-broadcaster` process (its own publisher enrollment) and its control API. */
export interface Broadcaster {
  proc: SpawnedProcess
  api: ControlApi
  /** Adds and starts a `test` channel (light pattern, 1 s segments); resolves its feedKey once registered. */
  channel(id: string, extra?: Record<string, unknown>): Promise<string>
  /** Freezes (SIGSTOP) or thaws (SIGCONT) the whole process: a broadcaster that stopped answering. */
  signal(sig: 'SIGSTOP' | 'SIGCONT' | 'SIGKILL'): void
}

/** testkit's startBroadcaster on the stack's panel (short heartbeat and rotate grace), torn down with `t`. */
export async function startBroadcaster (t: TestContextLike, stack: Stack): Promise<Broadcaster> {
  const bc = await startKitBroadcaster(t, { panel: stack.handle, env: { REGISTER_HEARTBEAT_SEC: '5', ROTATE_GRACE_SEC: '5' } })
  return {
    proc: bc.proc as SpawnedProcess,
    api: {
      get: (path) => bc.call('GET', path),
      post: (path, body) => bc.call('POST', path, body),
      patch: (path, body) => bc.call('PATCH', path, body),
      del: (path) => bc.call('DELETE', path)
    },
    channel: (id, extra) => bc.channel(id, extra),
    signal: (sig) => bc.signal(sig)
  }
}

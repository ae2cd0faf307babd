import fs from 'node:fs/promises'
import http from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomBytes, toHex } from '@arus/crypto'
import {
  ENGINE_PROTOCOL_VERSION, SdkError, createEngine, createPlayer, encodeLine, loginWithRetry,
  type FsModule, type HttpModule, type LoginOptions, type Player
} from '@arus/sdk'
import { cleanupAll, createTestnet, tmpDir, waitFor, type TestContextLike, type Testnet } from '@arus/testkit'

// Issue 39 item 4: with a panel key nobody serves, login used to wait 10 s for the link and the
// host retry pattern repeated that 30 times (about 5.5 minutes). Spec 3 "Errors": persisting
// over 30 s means a wrong panel key, so the whole retry is bounded by 30 s, on the Node SDK and
// through the engine IPC, and ends with the documented 'not connected to panel'.
const ctx = { onTestFinished: () => {} }
let testnet: Testnet

beforeAll(async () => { testnet = await createTestnet(ctx) }, 60_000)
afterAll(async () => { await cleanupAll() }, 60_000)

/** A panel key that looks right and that nobody serves. */
const wrongKey = (): string => toHex(randomBytes(32))

function wrongKeyPlayer (t: TestContextLike): Player {
  const player = createPlayer({ panelPubKey: wrongKey(), storeDir: tmpDir(t, 'arus-viewer-'), swarm: { bootstrap: testnet.bootstrap } })
  t.onTestFinished(() => player.stop())
  return player
}

/** A login that fails like a dialing player: it waits out its link wait, then throws. */
function dialingForever (calls: LoginOptions[]): Pick<Player, 'login'> {
  return {
    login: async (_u, _p, opts = {}) => {
      calls.push(opts)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, opts.linkWaitMs ?? 10_000)
        opts.signal?.addEventListener('abort', () => { clearTimeout(timer); resolve() }, { once: true })
      })
      throw SdkError.notConnected()
    }
  }
}

describe('a wrong panel key', () => {
  it("loginWithRetry gives up within 35 s with 'not connected to panel' (SDK_NOT_CONNECTED), the last link wait cut to the budget left", async (t) => {
    const player = wrongKeyPlayer(t)
    await player.connect()
    const waits: number[] = []
    const counting: Pick<Player, 'login'> = { login: (u, p, opts) => { waits.push(opts?.linkWaitMs ?? -1); return player.login(u, p, opts) } }
    const t0 = Date.now()
    const err = await loginWithRetry(counting, 'alice', 'alice-pw').catch((e: unknown) => e)
    const elapsed = Date.now() - t0
    expect(err).toBeInstanceOf(SdkError)
    expect(err).toMatchObject({ code: 'SDK_NOT_CONNECTED', message: 'not connected to panel' })
    expect(elapsed).toBeLessThan(35_000)
    // It is the 30 s bound that ended it, not an earlier failure.
    expect(elapsed).toBeGreaterThanOrEqual(29_000)
    expect(waits.length).toBeGreaterThanOrEqual(2)
    expect(waits.length).toBeLessThan(30)
    expect(waits[0]).toBe(10_000)
    expect(waits.at(-1)!).toBeLessThan(10_000)
  }, 50_000)

  it("the engine's login (engine IPC) answers a login-error SDK_NOT_CONNECTED within 35 s", async (t) => {
    const messages: Array<Record<string, any>> = []
    const engine = createEngine({
      runtime: { http: http as unknown as HttpModule, fs: fs as unknown as FsModule },
      dataDir: tmpDir(t, 'arus-engine-'),
      write: (line) => messages.push(JSON.parse(line) as Record<string, any>),
      warn: () => {}
    })
    t.onTestFinished(() => engine.close())
    engine.push(encodeLine({ cmd: 'start', v: ENGINE_PROTOCOL_VERSION, panelPubKey: wrongKey(), swarm: { bootstrap: testnet.bootstrap } }))
    await waitFor(() => messages.some((m) => m.type === 'status' && m.state === 'ready'), { timeoutMs: 20_000, message: 'ready' })
    const t0 = Date.now()
    engine.push(encodeLine({ cmd: 'login', id: 'w', username: 'alice', password: 'alice-pw' }))
    const answer = await waitFor(() => messages.find((m) => m.type === 'login-error' || (m.type === 'status' && m.state === 'logged-in')), { timeoutMs: 45_000, intervalMs: 100, message: 'the login outcome' })
    const elapsed = Date.now() - t0
    expect(answer).toEqual({ type: 'login-error', id: 'w', code: 'SDK_NOT_CONNECTED', message: 'not connected to panel', retryable: true })
    expect(elapsed).toBeLessThan(35_000)
    expect(elapsed).toBeGreaterThanOrEqual(29_000)
  }, 60_000)
})

describe('loginWithRetry bounds', () => {
  it('totalMs bounds the retry; each link wait is cut to what is left', async () => {
    const calls: LoginOptions[] = []
    const t0 = Date.now()
    await expect(loginWithRetry(dialingForever(calls), 'u', 'p', { totalMs: 1_500, delayMs: 200 })).rejects.toMatchObject({ code: 'SDK_NOT_CONNECTED' })
    const elapsed = Date.now() - t0
    expect(elapsed).toBeGreaterThanOrEqual(1_400)
    expect(elapsed).toBeLessThan(2_500)
    expect(calls).toHaveLength(1)
    expect(calls[0]!.linkWaitMs).toBeLessThanOrEqual(1_500)
  })

  it('attempts and delayMs still apply under the time bound', async () => {
    const calls: LoginOptions[] = []
    const t0 = Date.now()
    const fast: Pick<Player, 'login'> = { login: async (_u, _p, opts = {}) => { calls.push(opts); throw SdkError.notConnected() } }
    await expect(loginWithRetry(fast, 'u', 'p', { attempts: 4, delayMs: 50 })).rejects.toMatchObject({ code: 'SDK_NOT_CONNECTED' })
    expect(calls).toHaveLength(4)
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140)
    // Another error is final at once.
    let n = 0
    const wrong: Pick<Player, 'login'> = { login: async () => { n++; throw new SdkError('SDK_WRONG_PASSWORD', 'wrong username or password') } }
    await expect(loginWithRetry(wrong, 'u', 'p')).rejects.toMatchObject({ code: 'SDK_WRONG_PASSWORD' })
    expect(n).toBe(1)
  })

  it('an abort ends the link wait and the pause at once', async () => {
    const calls: LoginOptions[] = []
    const stop = new AbortController()
    setTimeout(() => stop.abort(), 300)
    const t0 = Date.now()
    await expect(loginWithRetry(dialingForever(calls), 'u', 'p', { signal: stop.signal })).rejects.toMatchObject({ code: 'SDK_NOT_CONNECTED' })
    expect(Date.now() - t0).toBeLessThan(1_500)
    expect(calls).toHaveLength(1)
    expect(calls[0]!.signal).toBe(stop.signal)
  })
})

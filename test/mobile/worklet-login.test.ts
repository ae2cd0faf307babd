import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomBytes, toHex } from '@arus/crypto'
import { ENGINE_PROTOCOL_VERSION } from '@arus/sdk'
import { cleanupAll, createTestnet, tmpDir, type Testnet } from '@arus/testkit'
import { buildBundle, startWorklet } from './worklet-host.js'

// Issue 39 item 4, as a mobile host sees it: the engine worklet under the real Bare runtime,
// started with a panel key nobody serves (a local testnet, no panel), answers a login with
// the documented login-error within about 30 s instead of retrying for 5.5 minutes.

const ctx = { onTestFinished: () => {} }
let testnet: Testnet
let bundle: string

beforeAll(async () => {
  bundle = buildBundle(ctx).bundle
  testnet = await createTestnet(ctx)
}, 180_000)

afterAll(async () => { await cleanupAll() }, 60_000)

describe('the engine worklet with a wrong panel key', () => {
  it('answers login with login-error SDK_NOT_CONNECTED within 35 s', async (t) => {
    const w = startWorklet(t, bundle, tmpDir(t, 'arus-worklet-data-'))
    w.send({ cmd: 'start', v: ENGINE_PROTOCOL_VERSION, panelPubKey: toHex(randomBytes(32)), swarm: { bootstrap: testnet.bootstrap } })
    await w.next((m) => m.type === 'status' && m.state === 'ready', { what: 'ready' })
    const from = w.messages.length
    const t0 = Date.now()
    w.send({ cmd: 'login', id: 'w', username: 'alice', password: 'alice-pw' })
    const answer = await w.next((m) => m.type === 'login-error' || (m.type === 'status' && m.state === 'logged-in'), { from, timeoutMs: 45_000, what: 'the login outcome' })
    const elapsed = Date.now() - t0
    expect(answer).toEqual({ type: 'login-error', id: 'w', code: 'SDK_NOT_CONNECTED', message: 'not connected to panel', retryable: true })
    expect(elapsed).toBeLessThan(35_000)
    expect(elapsed).toBeGreaterThanOrEqual(29_000)
    w.send({ cmd: 'stop' })
    expect(await w.exited()).toBe(0)
  }, 60_000)
})

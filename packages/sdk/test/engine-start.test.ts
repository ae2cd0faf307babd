import fs from 'node:fs/promises'
import http from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomBytes, toHex } from '@arus/crypto'
import { REPORT_CATEGORIES as PROTOCOL_REPORT_CATEGORIES } from '@arus/engine-protocol'
import { REPORT_CATEGORIES } from '@arus/rpc'
import { ENGINE_PROTOCOL_VERSION, createEngine, encodeLine, type FsModule, type HttpModule } from '@arus/sdk'
import { cleanupAll, createTestnet, tmpDir, waitFor, type TestContextLike, type Testnet } from '@arus/testkit'

// Issue 44: engine protocol 2 keeps the compat rule of docs/engine-ipc.md (an engine takes a
// start of any version up to its own, refuses a newer one and stays unstarted), and a refused
// start (item 10: hybrid, not a product path) leaves the engine able to take a corrected one.
const ctx = { onTestFinished: () => {} }
let testnet: Testnet

beforeAll(async () => { testnet = await createTestnet(ctx) }, 60_000)
afterAll(async () => { await cleanupAll() }, 60_000)

function engineOn (t: TestContextLike): { push: (c: Record<string, unknown>) => void; messages: Array<Record<string, any>> } {
  const messages: Array<Record<string, any>> = []
  const engine = createEngine({
    runtime: { http: http as unknown as HttpModule, fs: fs as unknown as FsModule },
    dataDir: tmpDir(t, 'arus-engine-'),
    write: (line) => messages.push(JSON.parse(line) as Record<string, any>),
    warn: () => {}
  })
  t.onTestFinished(() => engine.close())
  return { push: (c) => engine.push(encodeLine(c)), messages }
}

const start = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ cmd: 'start', panelPubKey: toHex(randomBytes(32)), swarm: { bootstrap: testnet.bootstrap }, ...extra })

describe('engine start', () => {
  it("the protocol's report categories are the RPC's (engine-protocol keeps its own copy: hosts import it alone)", () => {
    expect([...PROTOCOL_REPORT_CATEGORIES]).toEqual([...REPORT_CATEGORIES])
  })

  it('protocol 2 takes a version-1 host; refuses a newer host and stays unstarted', async (t) => {
    expect(ENGINE_PROTOCOL_VERSION).toBe(2)
    const e = engineOn(t)
    e.push(start({ id: 'new', v: 3 }))
    await waitFor(() => e.messages.find((m) => m.type === 'error' && m.id === 'new'), { timeoutMs: 10_000, message: 'refusal' })
    e.push({ cmd: 'vodProvider', id: 'early' })
    e.push(start({ id: 'old', v: 1 }))
    await waitFor(() => e.messages.some((m) => m.type === 'status' && m.state === 'ready'), { timeoutMs: 20_000, message: 'ready' })
    const got = e.messages.filter((m) => m.type !== 'prefs')
    expect(got[0]).toMatchObject({ type: 'error', id: 'new', cmd: 'start', code: 'SDK_ENGINE_PROTOCOL' })
    expect(got[1]).toMatchObject({ type: 'error', id: 'early', cmd: 'vodProvider', code: 'SDK_ENGINE_NOT_STARTED' })
    expect(got[2]).toEqual({ type: 'port', v: 2, port: expect.any(Number) })
  }, 60_000)

  it('a refused start (hybrid) leaves the engine unstarted and able to take a corrected start', async (t) => {
    const e = engineOn(t)
    e.push(start({ id: 1, v: ENGINE_PROTOCOL_VERSION, hybrid: { cdnUrl: 'https://cdn.example/{id}.m3u8' } }))
    e.push({ cmd: 'prewarm', id: 2 })
    e.push(start({ id: 3, v: ENGINE_PROTOCOL_VERSION }))
    await waitFor(() => e.messages.some((m) => m.type === 'status' && m.state === 'ready'), { timeoutMs: 20_000, message: 'ready' })
    e.push({ cmd: 'vodProvider', id: 4 })
    await waitFor(() => e.messages.some((m) => m.type === 'vod-provider'), { timeoutMs: 10_000, message: 'vod-provider' })
    const got = e.messages.filter((m) => m.type !== 'prefs')
    expect(got.map((m) => m.type === 'error' ? `${m.type}:${m.code}:${m.id}` : m.type)).toEqual(['error:SDK_INVALID_OPTIONS:1', 'error:SDK_ENGINE_NOT_STARTED:2', 'port', 'status', 'vod-provider'])
    expect(got[0]!.message).toContain('hybrid')
    expect(got[4]).toEqual({ type: 'vod-provider', id: 4, provider: null })
  }, 60_000)
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fromHex, oprf, solvePow, toHex } from '@arus/crypto'
import { RpcError, type RpcClient } from '@arus/rpc'
import { cleanupAll, createTestnet, tmpDir, type Testnet } from '@arus/testkit'
import { cliJson, initPanel, linkToPanel, panelEnv, spawnPanel, type PanelLink } from './helpers.js'

// Issue 40: the unthrottled `kdf` method is gone, and `login` answers a name without an account
// exactly as it answers a real one — same shape, and a response time within noise. 200 calls of
// each, interleaved so both see the same machine load; a two-sample Kolmogorov–Smirnov statistic
// and the medians compare the distributions, and the same statistic is shown to flag a planted
// 20 % delay in the real samples (so the comparison can fail).
let testnet: Testnet
let panelKey: string
let link: PanelLink

beforeAll(async () => {
  testnet = await createTestnet()
  const env = panelEnv(tmpDir(undefined, 'panel-indist-'), { BOOTSTRAP: testnet.bootstrapString, LOCKOUT_THRESHOLD: '10000', POW_DIFFICULTY: '0' })
  panelKey = (await initPanel(env)).panelKey
  await cliJson(env, ['add-stream', 'news', '--title', 'News'])
  await cliJson(env, ['create-user', 'alice'], 'alice-pw\n')
  await cliJson(env, ['grant', 'alice', 'news'])
  await spawnPanel(undefined, env)
  link = await linkToPanel({ onTestFinished: () => {} }, testnet, panelKey)
}, 60_000)

afterAll(async () => { await cleanupAll() }, 30_000)

/** One `login` call after its `hello` and proof of work; only the login round trip is timed. */
async function timedLogin (rpc: RpcClient, username: string): Promise<{ ms: number; reply: Record<string, unknown> }> {
  const hello = await rpc.hello()
  const nonce = solvePow(fromHex(hello.challenge, 32), hello.difficulty)
  const { blindedElement } = oprf.blind(new TextEncoder().encode('some password'))
  const t0 = performance.now()
  const reply = await rpc.login({ username, blinded: toHex(blindedElement), powNonce: toHex(nonce) })
  return { ms: performance.now() - t0, reply: reply as unknown as Record<string, unknown> }
}

/** Two-sample Kolmogorov–Smirnov statistic: the largest gap between the empirical distributions. */
function ksStatistic (a: number[], b: number[]): number {
  const xs = [...a].sort((p, q) => p - q)
  const ys = [...b].sort((p, q) => p - q)
  let i = 0
  let j = 0
  let d = 0
  while (i < xs.length && j < ys.length) {
    const v = Math.min(xs[i]!, ys[j]!)
    while (i < xs.length && xs[i]! <= v) i++
    while (j < ys.length && ys[j]! <= v) j++
    d = Math.max(d, Math.abs(i / xs.length - j / ys.length))
  }
  return d
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const shape = (reply: Record<string, unknown>) => Object.entries(reply).map(([k, v]) => `${k}:${typeof v}:${typeof v === 'string' ? v.length : v}`).sort()
// KS critical value for n = m = 200 at α = 0.001: 1.95·√(2/200) ≈ 0.195; 0.25 leaves room for
// load that changes between two adjacent calls.
const KS_LIMIT = 0.25

describe('known and unknown names look alike', () => {
  it('kdf: no longer served, for any name', async () => {
    for (const username of ['alice', 'nobody']) {
      const err = await link.rpc.request('kdf', { v: 1, username }).then(() => null, (e: unknown) => e)
      expect(err).toBeInstanceOf(RpcError)
      expect((err as RpcError).code).toBe('RPC_UNKNOWN_METHOD')
    }
  })

  it('login: the same reply shape and response-time distributions over 200 calls each', async () => {
    for (let i = 0; i < 20; i++) { await timedLogin(link.rpc, 'alice'); await timedLogin(link.rpc, 'nobody') } // warm-up
    const known: number[] = []
    const unknown: number[] = []
    const shapes = new Set<string>()
    for (let i = 0; i < 200; i++) {
      // Alternate which goes first, so neither name always follows the other.
      const order = i % 2 === 0 ? ['alice', `nobody-${i % 7}`] : [`nobody-${i % 7}`, 'alice']
      for (const name of order) {
        const { ms, reply } = await timedLogin(link.rpc, name)
        ;(name === 'alice' ? known : unknown).push(ms)
        shapes.add(JSON.stringify(shape(reply)))
      }
    }
    expect([...shapes]).toHaveLength(1)
    const d = ksStatistic(known, unknown)
    const ratio = median(known) / median(unknown)
    console.log(`login round trip, known ${median(known).toFixed(3)} ms, unknown ${median(unknown).toFixed(3)} ms (medians of 200); KS D = ${d.toFixed(3)}`)
    expect(d).toBeLessThan(KS_LIMIT)
    expect(ratio).toBeGreaterThan(0.8)
    expect(ratio).toBeLessThan(1.25)
    // The comparison can fail: the same samples with 20 % of a median added to one side are flagged.
    const planted = known.map((ms) => ms + 0.2 * median(known))
    expect(ksStatistic(planted, unknown)).toBeGreaterThan(KS_LIMIT)
  }, 120_000)
})

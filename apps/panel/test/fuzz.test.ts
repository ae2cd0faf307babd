import { afterAll, beforeAll, expect, it } from 'vitest'
import { fromHex, randomBytes, solvePow, toHex } from '@arus/crypto'
import { encodeRegisterPayload } from '@arus/rpc'
import { cleanupAll, createTestnet, tmpDir, type SpawnedProcess, type Testnet, viewerLogin } from '@arus/testkit'
import { cliJson, initPanel, linkToPanel, panelEnv, spawnPanel, type PanelLink } from './helpers.js'

// Hardening: thousands of malformed requests of every shape, to every method, against a
// real panel process. Each must get an in-band error; the panel must stay up and still
// serve a valid login afterwards.

let testnet: Testnet
let panel: SpawnedProcess
let panelKey: string
let link: PanelLink
const noTeardown = { onTestFinished: () => {} }

function rng (seed: number) {
  let a = seed >>> 0
  return () => { a = (a + 0x6d2b79f5) >>> 0; let t = Math.imul(a ^ (a >>> 15), a | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32 }
}

const METHODS = ['hello', 'login', 'session', 'register'] as const
const hex = (n: number) => toHex(randomBytes(n))

function junkValue (r: () => number, depth = 0): unknown {
  const pick = Math.floor(r() * 12)
  switch (pick) {
    case 0: return null
    case 1: return r() * 1e308
    case 2: return -1
    case 3: return true
    case 4: return 'x'.repeat(Math.floor(r() * 5000))
    case 5: return 'zz' + hex(31)
    case 6: return hex(Math.floor(r() * 80))
    case 7: return depth > 40 ? [] : [junkValue(r, depth + 1)]
    case 8: return depth > 40 ? {} : { a: junkValue(r, depth + 1), __proto__: { polluted: 1 } }
    case 9: return '\u0000\ud800'
    case 10: return { toString: 'boom', constructor: { prototype: { x: 1 } } }
    default: return ''
  }
}

const VALID: Record<string, () => Record<string, unknown>> = {
  hello: () => ({ v: 1 }),
  login: () => ({ v: 1, username: 'alice', blinded: hex(32), powNonce: hex(8) }),
  session: () => ({ v: 1, username: 'alice', deviceId: hex(32), authSig: hex(64), deviceSig: hex(64) }),
  register: () => ({ v: 1, payload: encodeRegisterPayload({ streamId: 'fuzz1', feedKey: hex(32), key: hex(32), ts: Date.now() }), sig: hex(64) })
}

/** One malformed request for `method`: raw bytes or a broken object. */
function malformed (r: () => number, method: string): unknown {
  const kind = Math.floor(r() * 9)
  const base = VALID[method]!()
  const fields = Object.keys(base)
  switch (kind) {
    case 0: return new Uint8Array(Math.floor(r() * 64)).map(() => Math.floor(r() * 256)) // non-JSON bytes
    case 1: return new Uint8Array(70 * 1024) // oversized frame
    case 2: return JSON.stringify(junkValue(r)) // a JSON primitive/array/object of junk
    case 3: { const f = fields[Math.floor(r() * fields.length)]!; return { ...base, [f]: junkValue(r) } } // one wrong field
    case 4: { const f = fields[Math.floor(r() * fields.length)]!; const { [f]: _, ...rest } = base; return f === 'v' || method !== 'hello' ? rest : { ...base, extra: 1 } } // missing field
    case 5: return { ...base, extra: junkValue(r) } // unknown key
    case 6: return { ...base, v: 2 } // unsupported version
    case 7: return '{"v":1,' + '"a":'.repeat(2000) // truncated JSON
    default: return method === 'hello' ? { v: 1, pad: 'x'.repeat(100_000) } : base // schema-valid junk: random keys, signatures, points
  }
}

beforeAll(async () => {
  testnet = await createTestnet()
  const env = panelEnv(tmpDir(undefined, 'panel-fuzz-'), { BOOTSTRAP: testnet.bootstrapString, LOCKOUT_THRESHOLD: '10000' })
  panelKey = (await initPanel(env)).panelKey
  await cliJson(env, ['create-user', 'alice'], 'alice-pw\n')
  panel = await spawnPanel(undefined, env)
  link = await linkToPanel(noTeardown, testnet, panelKey)
}, 60_000)

afterAll(async () => { await cleanupAll() }, 30_000)

it('survives 2,400 malformed requests to every method and still serves a valid login', async () => {
  const r = rng(0x5eed)
  const cases: Array<{ method: string; value: unknown }> = []
  for (let i = 0; i < 600; i++) for (const method of METHODS) cases.push({ method, value: malformed(r, method) })
  // Requests that pass the schema but carry semantic junk reach the handlers: invalid
  // ristretto points behind a valid proof of work, sessions without a login, bad signatures.
  for (let i = 0; i < 20; i++) {
    const hello = await link.rpc.hello()
    const nonce = solvePow(fromHex(hello.challenge, 32), hello.difficulty)
    const reply = await link.rpc.request('login', { v: 1, username: 'alice', blinded: 'ff'.repeat(32), powNonce: toHex(nonce) }) as { error?: string }
    expect(reply.error).toBe('invalid-request')
  }

  const replies: unknown[] = []
  for (let i = 0; i < cases.length; i += 64) {
    const batch = cases.slice(i, i + 64)
    replies.push(...await Promise.all(batch.map(({ method, value }) => link.rpc.request(method, value))))
  }
  expect(replies).toHaveLength(2400)
  for (const [i, reply] of replies.entries()) {
    const c = cases[i]!
    if (c.method === 'hello' && (reply as { challenge?: string }).challenge) continue // a junk-free hello is a valid hello
    expect(reply, `${c.method} #${i}`).toHaveProperty('error')
    expect((reply as { error: string }).error, `${c.method} #${i}`).not.toBe('internal')
  }
  expect(panel.child.exitCode).toBeNull()

  const fresh = await linkToPanel(noTeardown, testnet, panelKey)
  const login = await viewerLogin(fresh.rpc, fresh.reader, { username: 'alice', password: 'alice-pw' })
  expect(login.token).toMatch(/\./)
}, 120_000)

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRpcClient, createRpcResponder, isRpcMethod, METHODS, type RpcClient, type RpcHandlers, type RpcMethod } from '@arus/rpc'
import { BASES, generateCases, type FuzzCase } from './fuzz-cases.js'
import { createSwarmPair, hexOf, type SwarmPair } from './helpers.js'

const SEED = 0x5eed_a7e5
const PER_METHOD = 600
const CONCURRENCY = 64

describe('fuzzing the responder with malformed requests', () => {
  let pair: SwarmPair
  let client: RpcClient
  const invoked: Array<{ method: RpcMethod, valid: boolean }> = []
  const errors: unknown[] = []

  beforeAll(async () => {
    pair = await createSwarmPair()
    // Every stub re-validates what it was handed, so an invalid value reaching
    // a handler is caught even if it would otherwise answer normally.
    const stub = <M extends RpcMethod>(method: M, reply: object) => (req: unknown) => {
      invoked.push({ method, valid: METHODS[method].request.safeParse(req).success })
      return reply as never
    }
    const handlers: RpcHandlers = {
      hello: stub('hello', { challenge: hexOf(32), difficulty: 1 }),
      login: stub('login', { evaluated: hexOf(32), sessionChallenge: hexOf(32) }),
      session: stub('session', { token: 't', expiresAt: 1, tokenVersion: 0, deviceCount: 1 }),
      register: stub('register', { ok: true, changed: false })
    }
    createRpcResponder(pair.serverConn, handlers, { onError: (err) => { errors.push(err) } })
    client = createRpcClient(pair.clientConn, { timeoutMs: 15_000 })
  })
  afterAll(async () => { await pair?.destroy() })

  it(`answers ${PER_METHOD * 5}+ malformed requests in-band and never calls a handler`, async () => {
    const cases = generateCases(SEED, PER_METHOD)
    expect(cases.length).toBeGreaterThanOrEqual(2000)
    expect(new Set(cases.map((c) => c.kind)).size).toBeGreaterThanOrEqual(12)

    const mismatches: string[] = []
    const check = async (c: FuzzCase): Promise<void> => {
      const reply = await client.request(c.method, c.value)
      const ok = typeof reply === 'object' && reply !== null && !Array.isArray(reply) &&
        (reply as Record<string, unknown>).v === 1 && (reply as Record<string, unknown>).error === c.expect &&
        Object.keys(reply).every((k) => k === 'v' || k === 'error' || k === 'detail')
      if (!ok) mismatches.push(`${c.method}/${c.kind}: expected ${c.expect}, got ${JSON.stringify(reply).slice(0, 200)}`)
    }
    for (let i = 0; i < cases.length; i += CONCURRENCY) {
      await Promise.all(cases.slice(i, i + CONCURRENCY).map(check))
    }

    expect(mismatches, `seed ${SEED}`).toEqual([])
    expect(invoked).toEqual([])
    expect(errors).toEqual([])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(pair.serverConn.destroyed).toBe(false)
  })

  it('still serves every method correctly afterwards', async () => {
    for (const method of Object.keys(BASES)) {
      if (!isRpcMethod(method)) throw new Error(method)
      const reply = await client.request(method, BASES[method])
      expect(METHODS[method].reply.safeParse(reply).success).toBe(true)
    }
    expect(invoked.map((i) => i.method)).toEqual(['hello', 'login', 'session', 'register'])
    expect(invoked.every((i) => i.valid)).toBe(true)
  })
})

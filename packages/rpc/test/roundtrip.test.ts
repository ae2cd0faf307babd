import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createRpcClient, createRpcResponder, encodeRegisterPayload, RpcError,
  type RpcClient, type RpcHandlers
} from '@arus/rpc'
import { createSwarmPair, hexOf, type SwarmPair } from './helpers.js'

// Stub handlers with just enough behaviour to exercise every reply and error
// path; the real ones live in the panel.
function stubHandlers (calls: string[]): Partial<RpcHandlers> {
  return {
    hello (_req, ctx) {
      calls.push('hello')
      ctx.connectionState.set('challenge', hexOf(32, 0x11))
      return { challenge: hexOf(32, 0x11), difficulty: 8 }
    },
    login (req, ctx) {
      calls.push('login')
      if (req.username === 'locked') return { error: 'locked', retryAfter: 30 }
      if (!ctx.connectionState.has('challenge')) return { error: 'no-challenge' }
      ctx.connectionState.delete('challenge')
      return { evaluated: hexOf(32, 0x22), sessionChallenge: hexOf(32, 0x33) }
    },
    session (req) {
      calls.push('session')
      if (req.username === 'mallory') return { error: 'unauthorized' }
      return { token: `token-for-${req.username}`, expiresAt: 1_900_000_000_000, tokenVersion: 2, deviceCount: 1 }
    },
    register (req) {
      calls.push('register')
      const payload = JSON.parse(req.payload) as { publisher?: string }
      if (payload.publisher === 'ghost') return { error: 'unknown-publisher' }
      return { ok: true, changed: true }
    }
  }
}

const login = { username: 'alice', blinded: hexOf(32, 0x44), powNonce: '00ff' }
const session = { username: 'alice', deviceId: hexOf(32, 0x55), label: 'living room', authSig: hexOf(64, 1), deviceSig: hexOf(64, 2) }
const payload = { streamId: 'news.1', feedKey: hexOf(32, 0x66), key: hexOf(32, 0x77), ts: 1_800_000_000_000 }

async function rejection (promise: Promise<unknown>): Promise<RpcError> {
  const err = await promise.then(() => null, (e: unknown) => e)
  expect(err).toBeInstanceOf(RpcError)
  return err as RpcError
}

describe('round trip over a testnet connection', () => {
  let pair: SwarmPair
  let client: RpcClient
  const calls: string[] = []

  beforeAll(async () => {
    pair = await createSwarmPair()
    createRpcResponder(pair.serverConn, stubHandlers(calls))
    client = createRpcClient(pair.clientConn)
  })
  afterAll(async () => { await pair?.destroy() })

  it('checks the remote is the server before use (the panel key check clients must do)', () => {
    expect(Buffer.from(pair.clientConn.remotePublicKey).equals(Buffer.from(pair.serverPublicKey))).toBe(true)
  })

  it('hello returns a challenge and difficulty', async () => {
    expect(await client.hello()).toEqual({ v: 1, challenge: hexOf(32, 0x11), difficulty: 8 })
  })

  it('login uses the per-connection state the hello left', async () => {
    await client.hello()
    expect(await client.login(login)).toEqual({ v: 1, evaluated: hexOf(32, 0x22), sessionChallenge: hexOf(32, 0x33) })
    const err = await rejection(client.login(login))
    expect(err.code).toBe('RPC_REMOTE_ERROR')
    expect(err.reason).toBe('no-challenge')
    expect(err.message).toBe('no-challenge')
  })

  it('surfaces locked with retryAfter', async () => {
    const err = await rejection(client.login({ ...login, username: 'locked' }))
    expect(err).toMatchObject({ code: 'RPC_REMOTE_ERROR', reason: 'locked', retryAfter: 30 })
  })

  it('session returns a token, or unauthorized', async () => {
    expect(await client.session(session)).toEqual({ v: 1, token: 'token-for-alice', expiresAt: 1_900_000_000_000, tokenVersion: 2, deviceCount: 1 })
    const err = await rejection(client.session({ ...session, username: 'mallory' }))
    expect(err).toMatchObject({ code: 'RPC_REMOTE_ERROR', reason: 'unauthorized' })
  })

  it('register accepts a signed payload, or names the rejection', async () => {
    expect(await client.register({ payload: encodeRegisterPayload(payload), sig: hexOf(64, 9) })).toEqual({ v: 1, ok: true, changed: true })
    const err = await rejection(client.register({ payload: encodeRegisterPayload({ ...payload, publisher: 'ghost' }), sig: hexOf(64, 9) }))
    expect(err).toMatchObject({ code: 'RPC_REMOTE_ERROR', reason: 'unknown-publisher' })
  })

  it('an unserved method (report on a panel without reports) is RPC_UNKNOWN_METHOD with message "unknown method"', async () => {
    const err = await rejection(client.request('report', { v: 1, category: 'buffering' }))
    expect(err.code).toBe('RPC_UNKNOWN_METHOD')
    expect(err.message).toBe('unknown method')
  })

  it('raw request returns error replies as data', async () => {
    expect(await client.request('hello', { v: 2 })).toEqual({ v: 1, error: 'unsupported-version' })
    expect(await client.request('hello', 'not json')).toEqual({ v: 1, error: 'invalid-request', detail: 'request is not JSON' })
  })

  it('rejects an invalid request locally without sending it', async () => {
    const before = calls.length
    const err = await rejection(client.login({ ...login, blinded: 'AB'.repeat(32) }))
    expect(err.code).toBe('RPC_INVALID_ARGUMENT')
    expect(err.detail).toMatch(/^blinded: /)
    expect(calls.length).toBe(before)
  })
})

import ProtomuxRPC from 'protomux-rpc'
import { describe, expect, it, onTestFinished } from 'vitest'
import { createRpcClient, createRpcResponder, encodeRegisterPayload, RpcError } from '@arus/rpc'
import { createSwarmPair, gate, hexOf, withTimeout, type SwarmPair } from './helpers.js'

const hello = { challenge: hexOf(32), difficulty: 4 }

async function pair (): Promise<SwarmPair> {
  const p = await createSwarmPair()
  onTestFinished(() => p.destroy())
  return p
}

async function rejection (promise: Promise<unknown>): Promise<RpcError> {
  const err = await promise.then(() => null, (e: unknown) => e)
  expect(err).toBeInstanceOf(RpcError)
  return err as RpcError
}

describe('responder failure handling', () => {
  it('a throwing handler yields internal, reports through onError and keeps serving', async () => {
    const { serverConn, clientConn } = await pair()
    const errors: Array<[unknown, string]> = []
    let fail = true
    createRpcResponder(serverConn, {
      hello () {
        if (fail) throw new Error('boom')
        return hello
      }
    }, { onError: (err, method) => { errors.push([err, method]) } })
    const client = createRpcClient(clientConn)
    expect(await rejection(client.hello())).toMatchObject({ code: 'RPC_REMOTE_ERROR', reason: 'internal' })
    expect(errors).toHaveLength(1)
    expect((errors[0]?.[0] as Error).message).toBe('boom')
    expect(errors[0]?.[1]).toBe('hello')
    fail = false
    expect(await client.hello()).toEqual({ v: 1, ...hello })
  })

  it('an invalid handler reply (bad field, unknown error string, non-object) becomes internal', async () => {
    const { serverConn, clientConn } = await pair()
    const errors: unknown[] = []
    const replies: unknown[] = [{ challenge: hexOf(32), difficulty: 99 }, { error: 'no-such-reason' }, { error: 'locked' }, 'text']
    createRpcResponder(serverConn, { hello: () => replies.shift() as never }, { onError: (err) => { errors.push(err) } })
    const client = createRpcClient(clientConn)
    for (let i = 0; i < 4; i++) expect((await rejection(client.hello())).reason).toBe('internal')
    expect(errors).toHaveLength(4)
  })

  it('a method without a handler is answered with unknown method', async () => {
    const { serverConn, clientConn } = await pair()
    createRpcResponder(serverConn, { hello: () => hello })
    const payload = encodeRegisterPayload({ streamId: 'a', feedKey: null, key: hexOf(32), ts: 1 })
    const err = await rejection(createRpcClient(clientConn).register({ payload, sig: hexOf(64) }))
    expect(err).toMatchObject({ code: 'RPC_UNKNOWN_METHOD', message: 'unknown method' })
  })

  it('honours a custom maxRequestBytes and hands handlers the remote public key', async () => {
    const { serverConn, clientConn, clientPublicKey } = await pair()
    let seen: Uint8Array | null = null
    createRpcResponder(serverConn, { hello: (_req, ctx) => { seen = ctx.remotePublicKey; return hello } }, { maxRequestBytes: 100 })
    const client = createRpcClient(clientConn)
    expect(await client.request('hello', `{"v":1}${' '.repeat(94)}`)).toEqual({ v: 1, error: 'too-large' })
    expect(await client.request('hello', `{"v":1}${' '.repeat(93)}`)).toEqual({ v: 1, ...hello })
    expect(Buffer.from(seen ?? []).equals(Buffer.from(clientPublicKey))).toBe(true)
  })

  it('tolerates the connection closing while a handler runs', async () => {
    const { serverConn, clientConn } = await pair()
    const started = gate()
    const hold = gate()
    const finished = gate()
    const errors: unknown[] = []
    createRpcResponder(serverConn, {
      async hello () {
        started.open()
        await hold.promise
        finished.open()
        return hello
      }
    }, { onError: (err) => { errors.push(err) } })
    const call = createRpcClient(clientConn).hello()
    await withTimeout(started.promise, 5000, 'handler start')
    const serverClosed = new Promise((resolve) => serverConn.once('close', resolve))
    clientConn.destroy()
    expect((await rejection(call)).code).toBe('RPC_CLOSED')
    await withTimeout(serverClosed, 5000, 'server side close')
    hold.open()
    await withTimeout(finished.promise, 5000, 'handler completion')
    await new Promise((resolve) => setImmediate(resolve))
    expect(errors).toEqual([])
  })

  it('rejects with RPC_INVALID_ARGUMENT on bad init values', async () => {
    const { serverConn, clientConn } = await pair()
    expect(() => createRpcResponder(serverConn, {}, { maxRequestBytes: 0 })).toThrow(RpcError)
    expect(() => createRpcClient(clientConn, { timeoutMs: -1 })).toThrow(expect.objectContaining({ code: 'RPC_INVALID_ARGUMENT' }))
  })
})

describe('client failure handling', () => {
  it('a reply that is not JSON, empty, or off-schema is RPC_BAD_REPLY', async () => {
    const { serverConn, clientConn } = await pair()
    const raw = new ProtomuxRPC(serverConn)
    raw.respond('hello', () => Buffer.from('<html>'))
    raw.respond('login', () => Buffer.from(JSON.stringify({ v: 1, evaluated: 'nope' })))
    raw.respond('session', () => null)
    const client = createRpcClient(clientConn)
    expect((await rejection(client.hello())).code).toBe('RPC_BAD_REPLY')
    expect((await rejection(client.login({ username: 'a', blinded: hexOf(32), powNonce: '00' }))).code).toBe('RPC_BAD_REPLY')
    const session = { username: 'a', deviceId: hexOf(32), authSig: hexOf(64), deviceSig: hexOf(64) }
    expect((await rejection(client.session(session))).code).toBe('RPC_BAD_REPLY')
  })

  it('a reply that never comes is RPC_TIMEOUT', async () => {
    const { serverConn, clientConn } = await pair()
    const hold = gate()
    onTestFinished(hold.open)
    createRpcResponder(serverConn, { hello: async () => { await hold.promise; return hello } })
    const err = await rejection(createRpcClient(clientConn, { timeoutMs: 200 }).hello())
    expect(err.code).toBe('RPC_TIMEOUT')
  })

  it('close() rejects pending and later calls with RPC_CLOSED; abort gives RPC_ABORTED', async () => {
    const { serverConn, clientConn } = await pair()
    const hold = gate()
    onTestFinished(hold.open)
    createRpcResponder(serverConn, { hello: async () => { await hold.promise; return hello } })
    const client = createRpcClient(clientConn)
    const controller = new AbortController()
    const aborted = client.hello({ signal: controller.signal })
    controller.abort()
    expect((await rejection(aborted)).code).toBe('RPC_ABORTED')
    expect((await rejection(client.hello({ signal: AbortSignal.abort() }))).code).toBe('RPC_ABORTED')
    const pending = client.hello()
    client.close()
    client.close()
    expect((await rejection(pending)).code).toBe('RPC_CLOSED')
    expect((await rejection(client.hello())).code).toBe('RPC_CLOSED')
  })

  it('a closed responder channel surfaces as RPC_CLOSED', async () => {
    const { serverConn, clientConn } = await pair()
    const responder = createRpcResponder(serverConn, { hello: () => hello })
    const client = createRpcClient(clientConn)
    expect(await client.hello()).toEqual({ v: 1, ...hello })
    responder.close()
    const first = await withTimeout(rejection(client.hello()), 5000, 'first call after close')
    expect(first.code).toBe('RPC_CLOSED')
    expect((await rejection(client.hello())).code).toBe('RPC_CLOSED')
  })

  it('a responder and a client share one channel per connection, in both directions', async () => {
    const { serverConn, clientConn } = await pair()
    createRpcResponder(serverConn, { hello: () => hello })
    const back = createRpcClient(serverConn)
    createRpcResponder(clientConn, { hello: () => ({ challenge: hexOf(32, 1), difficulty: 0 }) })
    const client = createRpcClient(clientConn)
    expect((await client.hello()).difficulty).toBe(4)
    expect((await back.hello()).difficulty).toBe(0)
    back.close()
    expect((await client.hello()).difficulty).toBe(4)
  })
})

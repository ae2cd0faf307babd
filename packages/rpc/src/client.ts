import type ProtomuxRPC from 'protomux-rpc'
import type { z } from 'zod'
import { DEFAULT_TIMEOUT_MS, PROTOCOL_VERSION } from './constants.js'
import { acquireChannel, type RpcConnection } from './channel.js'
import { describeIssues } from './detail.js'
import { RpcError } from './errors.js'
import type { RpcCallOptions, RpcClient, RpcClientInit } from './index.js'
import { METHODS, type RpcMethod, type RpcReply } from './methods.js'
import { toRemoteError, toTransportError } from './reply.js'
import { isJsonObject, utf8DecodeStrict, utf8Encode } from './text.js'

/**
 * A client parses each method's request and reply a handful of times per connection: zod's
 * compiled fast path (generated code per object schema, compiled on first use) costs a cold
 * process more than it saves, on the login's critical path (~2-5 ms over hello, kdf, login and
 * session; docs/architecture.md "The first login").
 */
const ONE_CALL = { jitless: true } as const

/** See `createRpcClient` in index.ts. */
export function startClient (target: RpcConnection | ProtomuxRPC, init: RpcClientInit = {}): RpcClient {
  const timeoutMs = init.timeoutMs ?? DEFAULT_TIMEOUT_MS
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) throw RpcError.invalidArgument('timeoutMs must be a positive integer')
  const lease = acquireChannel(target)
  const pending = new Set<(err: RpcError) => void>()
  let closed = false

  // Send one request and return the reply parsed as JSON (errors not interpreted).
  const send = (method: string, bytes: Uint8Array, opts: RpcCallOptions = {}): Promise<unknown> => {
    const { signal } = opts
    if (closed) return Promise.reject(RpcError.closed())
    if (signal?.aborted === true) return Promise.reject(RpcError.aborted(signal.reason))
    return new Promise((resolve, reject) => {
      let done = false
      const settle = (err: RpcError | null, value?: unknown): void => {
        if (done) return
        done = true
        pending.delete(fail)
        signal?.removeEventListener('abort', onAbort)
        if (err === null) resolve(value)
        else reject(err)
      }
      const fail = (err: RpcError): void => settle(err)
      const onAbort = (): void => settle(RpcError.aborted(signal?.reason))
      pending.add(fail)
      signal?.addEventListener('abort', onAbort, { once: true })
      lease.rpc.request(method, bytes, { timeout: timeoutMs }).then(
        (reply: unknown) => {
          try {
            settle(null, decodeReply(reply))
          } catch (err) {
            settle(err instanceof RpcError ? err : RpcError.badReply('undecodable', err))
          }
        },
        (err: unknown) => settle(toTransportError(err, timeoutMs, lease.rpc.closed))
      )
    })
  }

  const call = async <M extends RpcMethod>(method: M, req: object, opts?: RpcCallOptions): Promise<RpcReply<M>> => {
    const spec = METHODS[method]
    const request = (spec.request as z.ZodType).safeParse({ v: PROTOCOL_VERSION, ...req }, ONE_CALL)
    if (!request.success) throw RpcError.invalidArgument(describeIssues(request.error.issues))
    const json = await send(method, utf8Encode(JSON.stringify(request.data)), opts)
    if (isJsonObject(json) && typeof json.error === 'string') throw toRemoteError(json)
    const reply = (spec.reply as z.ZodType).safeParse(json, ONE_CALL)
    if (!reply.success) throw RpcError.badReply(describeIssues(reply.error.issues))
    return reply.data as RpcReply<M>
  }

  return {
    hello: (opts) => call('hello', {}, opts),
    login: (req, opts) => call('login', req, opts),
    session: (req, opts) => call('session', req, opts),
    register: (req, opts) => call('register', req, opts),
    report: (req, opts) => call('report', req, opts),
    request: (method, value, opts) => {
      let bytes: Uint8Array
      try {
        bytes = rawBytes(value)
      } catch (err) {
        return Promise.reject(err)
      }
      return send(method, bytes, opts)
    },
    close () {
      if (closed) return
      closed = true
      const err = RpcError.closed()
      for (const fail of [...pending]) fail(err)
      lease.release()
    }
  }
}

function rawBytes (value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value
  if (typeof value === 'string') return utf8Encode(value)
  const text: unknown = JSON.stringify(value)
  if (typeof text !== 'string') throw RpcError.invalidArgument('value has no JSON form')
  return utf8Encode(text)
}

function decodeReply (reply: unknown): unknown {
  if (!(reply instanceof Uint8Array) || reply.byteLength === 0) throw RpcError.badReply('empty reply')
  const text = utf8DecodeStrict(reply)
  if (text === null) throw RpcError.badReply('reply is not valid UTF-8')
  try {
    return JSON.parse(text)
  } catch (err) {
    throw RpcError.badReply('reply is not JSON', err)
  }
}

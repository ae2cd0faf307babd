import type ProtomuxRPC from 'protomux-rpc'
import type { z } from 'zod'
import { MAX_REQUEST_BYTES, PROTOCOL_VERSION } from './constants.js'
import { acquireChannel, remotePublicKeyOf, type RpcConnection } from './channel.js'
import { describeIssues } from './detail.js'
import { RpcError } from './errors.js'
import type { RpcContext, RpcHandlers, RpcResponder, RpcResponderInit } from './index.js'
import { METHODS, type RpcMethod } from './methods.js'
import { ErrorReply } from './reasons.js'
import { checkRequest, errorReply } from './request-check.js'
import { isJsonObject, utf8Encode } from './text.js'

type AnyHandler = (req: unknown, ctx: RpcContext) => unknown

/** See `createRpcResponder` in index.ts. */
export function startResponder (target: RpcConnection | ProtomuxRPC, handlers: Partial<RpcHandlers>, init: RpcResponderInit = {}): RpcResponder {
  const maxBytes = init.maxRequestBytes ?? MAX_REQUEST_BYTES
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) throw RpcError.invalidArgument('maxRequestBytes must be a positive integer')
  const onError = init.onError

  const lease = acquireChannel(target)
  const rpc = lease.rpc
  const connectionState = new Map<string, unknown>()
  const served: RpcMethod[] = []

  const report = (err: unknown, method: RpcMethod): void => {
    try {
      onError?.(err, method)
    } catch {
      // an error reporter that throws must not take the responder down
    }
  }

  const answer = async (method: RpcMethod, handler: AnyHandler, value: unknown): Promise<Uint8Array> => {
    let reply: object
    try {
      reply = await compute(method, handler, value)
    } catch (err) {
      report(err, method)
      reply = errorReply('internal')
    }
    return utf8Encode(JSON.stringify(reply))
  }

  const compute = async (method: RpcMethod, handler: AnyHandler, value: unknown): Promise<object> => {
    const checked = checkRequest(method, value, maxBytes)
    if (!checked.ok) return checked.reply
    const ctx: RpcContext = { remotePublicKey: remotePublicKeyOf(rpc), connectionState }
    let result: unknown
    try {
      result = await handler(checked.request, ctx)
    } catch (err) {
      report(err, method)
      return errorReply('internal')
    }
    return finishReply(method, result)
  }

  for (const method of Object.keys(METHODS) as RpcMethod[]) {
    const handler = handlers[method] as AnyHandler | undefined
    if (typeof handler !== 'function') continue
    rpc.respond(method, (value: unknown) => answer(method, handler, value))
    served.push(method)
  }

  let closed = false
  return {
    rpc,
    close () {
      if (closed) return
      closed = true
      for (const method of served) rpc.unrespond(method)
      lease.release()
    }
  }
}

/**
 * Validate what a handler returned: an error body against ErrorReply, anything
 * else against the method's reply schema (`v` is filled in). A handler bug
 * becomes `internal` rather than a malformed reply on the wire.
 */
function finishReply (method: RpcMethod, result: unknown): object {
  if (!isJsonObject(result)) throw new Error(`${method} handler returned a non-object`)
  const isError = Object.hasOwn(result, 'error')
  const schema: z.ZodType = isError ? ErrorReply : METHODS[method].reply
  const parsed = schema.safeParse({ ...result, v: PROTOCOL_VERSION })
  if (!parsed.success) throw new Error(`${method} handler returned an invalid ${isError ? 'error ' : ''}reply: ${describeIssues(parsed.error.issues)}`)
  return parsed.data as object
}

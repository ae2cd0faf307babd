import type { z } from 'zod'
import { PROTOCOL_VERSION } from './constants.js'
import { describeIssues } from './detail.js'
import { METHODS, type MethodSpec, type RpcMethod, type RpcRequest } from './methods.js'
import type { ErrorReply, RpcErrorReason } from './reasons.js'
import { isJsonObject, utf8DecodeStrict } from './text.js'

/** Outcome of checking one raw request: the parsed value or the error reply to send. */
export type CheckedRequest<M extends RpcMethod> =
  | { ok: true, request: RpcRequest<M> }
  | { ok: false, reply: ErrorReply }

/**
 * Turn the raw frame value of a `method` request into a validated request, in
 * the order the protocol fixes: size cap (before any parsing), UTF-8, JSON,
 * object shape, version, schema. Never throws.
 */
export function checkRequest<M extends RpcMethod> (method: M, value: unknown, maxBytes: number): CheckedRequest<M> {
  if (!(value instanceof Uint8Array) || value.byteLength === 0) return invalid('empty request')
  if (value.byteLength > Math.min(maxBytes, (METHODS[method] as MethodSpec).maxRequestBytes ?? maxBytes)) return fail('too-large')
  const text = utf8DecodeStrict(value)
  if (text === null) return invalid('request is not valid UTF-8')
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return invalid('request is not JSON')
  }
  if (!isJsonObject(json)) return invalid('request must be a JSON object')
  if (!Object.hasOwn(json, 'v')) return invalid('v: required')
  if (json.v !== PROTOCOL_VERSION) {
    return Number.isInteger(json.v) ? fail('unsupported-version') : invalid('v: must be the integer 1')
  }
  const schema: z.ZodType = METHODS[method].request
  const parsed = schema.safeParse(json)
  if (!parsed.success) return invalid(describeIssues(parsed.error.issues))
  return { ok: true, request: parsed.data as RpcRequest<M> }
}

/** An error reply for `reason`. */
export function errorReply (reason: RpcErrorReason, detail?: string): ErrorReply {
  return detail === undefined ? { v: PROTOCOL_VERSION, error: reason } : { v: PROTOCOL_VERSION, error: reason, detail }
}

function fail (reason: RpcErrorReason): { ok: false, reply: ErrorReply } {
  return { ok: false, reply: errorReply(reason) }
}

function invalid (detail: string): { ok: false, reply: ErrorReply } {
  return { ok: false, reply: errorReply('invalid-request', detail) }
}

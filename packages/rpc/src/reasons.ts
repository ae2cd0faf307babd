import { z } from 'zod'
import { MAX_DETAIL_CHARS, PROTOCOL_VERSION } from './constants.js'

/**
 * Every in-band error string a responder may put in `{ error }`, with a
 * one-line meaning. docs/rpc-protocol.md "Error strings" carries the same
 * rows word for word (packages/rpc/test/docs.test.ts checks it).
 * Spec: 1-panel.md "Peer-to-peer RPC", "Errors" (register rows).
 */
export const RPC_ERROR_REASONS = {
  'too-large': 'the raw request exceeded 64 KiB and was not parsed',
  'unsupported-version': 'the request\'s `v` is an integer other than 1',
  'invalid-request': 'not a JSON object matching the method\'s schema; `detail` says which field and why',
  internal: 'the panel failed while handling a valid request; retrying later may work',
  'bad-pow': 'the nonce does not reach the difficulty for the current challenge',
  'no-challenge': 'no unused challenge on this connection: call `hello` (before login) or `login` (before session) first',
  locked: 'too many attempts; wait `retryAfter` seconds',
  unauthorized: 'a signature did not verify (session: auth, device or re-key signature, or no such account; register: payload signature; report: the session token is invalid, expired or no longer live)',
  disabled: 'the account is disabled',
  'unknown-publisher': 'the payload names a publisher that is not enrolled',
  revoked: 'the payload\'s publisher is revoked',
  'out-of-scope': 'the stream id matches none of the publisher\'s scope globs',
  stale: 'the payload\'s `ts` is older than the last accepted one for the stream, or too far from the panel clock (replay guard)'
} as const

/** An in-band error string; see {@link RPC_ERROR_REASONS}. */
export type RpcErrorReason = keyof typeof RPC_ERROR_REASONS

const reasonList = Object.keys(RPC_ERROR_REASONS) as [RpcErrorReason, ...RpcErrorReason[]]

/** Reasons any method may return, whatever its own list says. */
export const COMMON_ERROR_REASONS = ['too-large', 'unsupported-version', 'invalid-request', 'internal'] as const satisfies readonly RpcErrorReason[]

/**
 * An in-band error reply: `{ v: 1, error, retryAfter?, detail? }`. `locked`
 * requires `retryAfter` (whole seconds).
 */
export const ErrorReply = z.strictObject({
  v: z.literal(PROTOCOL_VERSION),
  error: z.enum(reasonList),
  retryAfter: z.number().int().min(0).optional(),
  detail: z.string().max(MAX_DETAIL_CHARS).optional()
}).refine((r) => r.error !== 'locked' || r.retryAfter !== undefined, {
  message: 'locked requires retryAfter', path: ['retryAfter']
})
export type ErrorReply = z.infer<typeof ErrorReply>

/** What a handler returns to answer with an in-band error (`v` is added for it). */
export type RpcErrorBody = Omit<ErrorReply, 'v'> & { v?: typeof PROTOCOL_VERSION }

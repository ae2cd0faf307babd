import type { z } from 'zod'
import type { RpcErrorReason } from './reasons.js'
import { HelloReply, HelloRequest, LoginReply, LoginRequest, SessionReply, SessionRequest } from './schema-auth.js'
import { RegisterReply, RegisterRequest } from './schema-register.js'
import { MAX_REPORT_REQUEST_BYTES, ReportReply, ReportRequest } from './schema-report.js'

/** One row of the method table. */
export interface MethodSpec<Req extends z.ZodType = z.ZodType, Rep extends z.ZodType = z.ZodType> {
  /** Request schema (a strict object carrying `v`). */
  readonly request: Req
  /** Success reply schema (a strict object carrying `v`). */
  readonly reply: Rep
  /** In-band errors this method answers with besides the common ones (too-large, unsupported-version, invalid-request, internal). */
  readonly errors: readonly RpcErrorReason[]
  /** One-line description. */
  readonly summary: string
  /** The method's own raw request cap, checked before parsing (below the responder's). */
  readonly maxRequestBytes?: number
}

/**
 * The panel's RPC method table (spec 1-panel.md "Peer-to-peer RPC"). Everything
 * else — handler types, client methods, docs checks — derives from it, so a new
 * method is one more row. A panel that does not serve `report` (reports disabled) leaves
 * protomux-rpc to answer it with 'unknown method'.
 */
export const METHODS = {
  hello: {
    request: HelloRequest,
    reply: HelloReply,
    errors: [],
    summary: 'hand out a fresh per-connection proof-of-work challenge'
  },
  login: {
    request: LoginRequest,
    reply: LoginReply,
    errors: ['bad-pow', 'no-challenge', 'locked'],
    summary: 'evaluate a blinded OPRF element after a proof of work'
  },
  session: {
    request: SessionRequest,
    reply: SessionReply,
    errors: ['unauthorized', 'disabled', 'no-challenge', 'locked'],
    summary: 'enroll a device and issue a panel-signed session token (re-keying the account to schedule 2 in the same write when asked)'
  },
  register: {
    request: RegisterRequest,
    reply: RegisterReply,
    errors: ['unknown-publisher', 'revoked', 'out-of-scope', 'unauthorized', 'stale'],
    summary: 'publish or update a catalog record from a signed payload'
  },
  report: {
    request: ReportRequest,
    reply: ReportReply,
    errors: ['unauthorized', 'locked'],
    summary: 'file a pseudonymous viewer problem report under a session token',
    maxRequestBytes: MAX_REPORT_REQUEST_BYTES
  }
} as const satisfies Record<string, MethodSpec>

/** A method name of {@link METHODS}. */
export type RpcMethod = keyof typeof METHODS
/** Parsed request type of method `M`. */
export type RpcRequest<M extends RpcMethod> = z.infer<(typeof METHODS)[M]['request']>
/** Success reply type of method `M`. */
export type RpcReply<M extends RpcMethod> = z.infer<(typeof METHODS)[M]['reply']>

/** True when `name` is a method of {@link METHODS} (own key, so '__proto__' is not). */
export function isRpcMethod (name: string): name is RpcMethod {
  return Object.hasOwn(METHODS, name)
}

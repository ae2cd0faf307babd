/**
 * @packageDocumentation
 * `@arus/rpc` — the panel's peer-to-peer method table (hello, login, kdf, session,
 * register, report) over protomux-rpc on Hyperswarm connections: zod schemas for every
 * request and reply, a responder that never throws on bad input, and a typed
 * client. The wire is specified in docs/rpc-protocol.md (spec 1-panel.md
 * "Peer-to-peer RPC"). This package does no cryptography: the panel verifies
 * signatures with `@arus/crypto`; the builders here only fix the signed bytes.
 */
import type ProtomuxRPC from 'protomux-rpc'
import type { RpcConnection } from './channel.js'
import { startClient } from './client.js'
import type { RpcMethod, RpcReply, RpcRequest } from './methods.js'
import type { RpcErrorBody } from './reasons.js'
import { startResponder } from './responder.js'
import type { HelloReply, LoginReply, LoginRequest, SessionReply, SessionRequest } from './schema-auth.js'
import type { RegisterReply, RegisterRequest } from './schema-register.js'
import type { ReportReply, ReportRequest } from './schema-report.js'

export { PROTOCOL_VERSION, MAX_REQUEST_BYTES, MAX_REGISTER_PAYLOAD_BYTES, DEFAULT_TIMEOUT_MS, SESSION_SIGNED_PREFIX, REKEY_SIGNED_PREFIX } from './constants.js'
export { RpcError, RPC_ERROR_CODES, type RpcErrorCode, type RpcRemoteErrorFields } from './errors.js'
export { RPC_ERROR_REASONS, COMMON_ERROR_REASONS, ErrorReply, type RpcErrorReason, type RpcErrorBody } from './reasons.js'
export { METHODS, isRpcMethod, type MethodSpec, type RpcMethod, type RpcRequest, type RpcReply } from './methods.js'
export { HelloRequest, HelloReply, LoginRequest, LoginReply, Rekey, SessionRequest, SessionReply } from './schema-auth.js'
export { RegisterRequest, RegisterReply } from './schema-register.js'
export {
  ReportRequest, ReportReply, ReportEvent, REPORT_CATEGORIES, REPORT_EVENT_KINDS, REPORT_TEXT_MAX, REPORT_EVENTS_MAX,
  REPORT_EVENT_DETAIL_MAX_BYTES, MAX_REPORT_REQUEST_BYTES, type ReportCategory
} from './schema-report.js'
export {
  RegisterPayload, parseRegisterPayload, encodeRegisterPayload, registerSignedBytes,
  type RegisterPayloadInput, type RegisterPayloadParse
} from './register-payload.js'
export { sessionSignedBytes, rekeySignedBytes } from './session-bytes.js'
export type { RpcConnection } from './channel.js'

/** What a responder hands every handler besides the request. */
export interface RpcContext {
  /** The remote peer's static Noise public key (empty if the stream has none). */
  remotePublicKey: Uint8Array
  /** Scratch space that lives as long as this connection's responder (e.g. the current challenge). */
  connectionState: Map<string, unknown>
}

/** A handler's answer: the method's reply (`v` optional, filled in) or an in-band error body. */
export type RpcHandlerResult<M extends RpcMethod> = (Omit<RpcReply<M>, 'v'> & { v?: RpcReply<M>['v'] }) | RpcErrorBody

/** Handles one validated request of method `M`. Throwing is allowed: the remote gets `{ error: 'internal' }`. */
export type RpcHandler<M extends RpcMethod> = (req: RpcRequest<M>, ctx: RpcContext) => RpcHandlerResult<M> | Promise<RpcHandlerResult<M>>

/** One handler per method; a responder serves only the methods given. */
export type RpcHandlers = { [M in RpcMethod]: RpcHandler<M> }

/** Options of {@link createRpcResponder}. */
export interface RpcResponderInit {
  /** Raw request cap in bytes, checked before parsing. Default {@link MAX_REQUEST_BYTES} (64 KiB). */
  maxRequestBytes?: number
  /** Called with every handler exception or invalid handler reply (the remote got `internal`). */
  onError?: (err: unknown, method: RpcMethod) => void
}

/** A running responder. */
export interface RpcResponder {
  /** The connection's RPC channel. */
  readonly rpc: ProtomuxRPC
  /** Stop serving these handlers; closes the channel if nothing else on this connection uses it. Idempotent. */
  close (): void
}

/** Options of {@link createRpcClient}. */
export interface RpcClientInit {
  /** Per-request timeout in ms. Default {@link DEFAULT_TIMEOUT_MS} (10 000). */
  timeoutMs?: number
}

/** Per-call options. */
export interface RpcCallOptions {
  /** Rejects the call with `RPC_ABORTED` when fired. */
  signal?: AbortSignal
}

/** Typed calls to the panel. Every rejection is an `RpcError`. */
export interface RpcClient {
  /** Get a fresh proof-of-work challenge. */
  hello (opts?: RpcCallOptions): Promise<HelloReply>
  /** OPRF login step; needs a prior hello and a nonce meeting its difficulty. */
  login (req: Omit<LoginRequest, 'v'>, opts?: RpcCallOptions): Promise<LoginReply>
  /** Enroll this device and get a session token. */
  session (req: Omit<SessionRequest, 'v'>, opts?: RpcCallOptions): Promise<SessionReply>
  /** Publish a signed register payload (text from `encodeRegisterPayload`). */
  register (req: Omit<RegisterRequest, 'v'>, opts?: RpcCallOptions): Promise<RegisterReply>
  /** File a problem report under a session token (a panel without reports: `RPC_UNKNOWN_METHOD`). */
  report (req: Omit<ReportRequest, 'v'>, opts?: RpcCallOptions): Promise<ReportReply>
  /**
   * Raw call (tests, probing): `value` is sent as-is if bytes, UTF-8 if a
   * string, JSON otherwise. Resolves with the reply parsed as JSON, error
   * replies included; rejects on transport failures and non-JSON replies.
   */
  request (method: string, value: unknown, opts?: RpcCallOptions): Promise<unknown>
  /** Reject pending calls with `RPC_CLOSED` and release the channel. Idempotent. */
  close (): void
}

/**
 * Serve `handlers` on a swarm connection (or an existing ProtomuxRPC). Each
 * request is size-capped, parsed, version-checked and schema-validated before
 * its handler runs; any failure is answered in-band and never throws. Methods
 * without a handler are answered by protomux-rpc with 'unknown method'.
 */
export function createRpcResponder (connection: RpcConnection | ProtomuxRPC, handlers: Partial<RpcHandlers>, init?: RpcResponderInit): RpcResponder {
  return startResponder(connection, handlers, init)
}

/**
 * A client on a swarm connection (or an existing ProtomuxRPC). Check
 * `connection.remotePublicKey` is the panel key before calling anything.
 */
export function createRpcClient (connection: RpcConnection | ProtomuxRPC, init?: RpcClientInit): RpcClient {
  return startClient(connection, init)
}

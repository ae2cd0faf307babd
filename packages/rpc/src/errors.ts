/**
 * Every code an `RpcError` can carry, with its meaning. Codes are stable and
 * never reused; callers match on `err.code`, never on the message.
 */
export const RPC_ERROR_CODES = {
  RPC_REMOTE_ERROR: 'the panel answered with an in-band error reply; `reason` is the error string, verbatim',
  RPC_BAD_REPLY: 'the reply was not UTF-8 JSON, or failed the method\'s reply schema',
  RPC_TIMEOUT: 'no reply within the timeout (default 10 000 ms)',
  RPC_CLOSED: 'the client or the connection closed before a reply arrived',
  RPC_UNKNOWN_METHOD: 'the panel does not serve the method; message `unknown method`',
  RPC_TRANSPORT: 'protomux-rpc reported another transport-level failure',
  RPC_ABORTED: 'the caller\'s `AbortSignal` fired',
  RPC_INVALID_ARGUMENT: 'a local argument failed validation; nothing was sent'
} as const

/** One of the keys of {@link RPC_ERROR_CODES}. */
export type RpcErrorCode = keyof typeof RPC_ERROR_CODES

/** Extra fields of an in-band error reply, e.g. `retryAfter` for `locked`. */
export interface RpcRemoteErrorFields {
  /** Seconds to wait before retrying (`locked`). */
  retryAfter?: number
  /** Human-readable detail (`invalid-request`); never contains request values. */
  detail?: string
  /** Any other fields of the error reply, except `v` and `error`. */
  extra?: Record<string, unknown>
}

/** The single error class of `@arus/rpc`. */
export class RpcError extends Error {
  readonly code: RpcErrorCode
  /** The in-band error string (only for `RPC_REMOTE_ERROR`). */
  readonly reason?: string
  /** Seconds until a retry may succeed (remote `locked`). */
  readonly retryAfter?: number
  /** Detail string from the remote or from local validation. */
  readonly detail?: string
  /** Remaining fields of a remote error reply. */
  readonly extra?: Record<string, unknown>

  constructor (code: RpcErrorCode, message: string, fields: RpcRemoteErrorFields & { reason?: string, cause?: unknown } = {}) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause })
    this.name = 'RpcError'
    this.code = code
    if (fields.reason !== undefined) this.reason = fields.reason
    if (fields.retryAfter !== undefined) this.retryAfter = fields.retryAfter
    if (fields.detail !== undefined) this.detail = fields.detail
    if (fields.extra !== undefined) this.extra = fields.extra
  }

  /** An in-band `{ error }` reply; the message is the reason verbatim. */
  static remote (reason: string, fields: RpcRemoteErrorFields = {}): RpcError {
    return new RpcError('RPC_REMOTE_ERROR', reason, { ...fields, reason })
  }

  static badReply (detail: string, cause?: unknown): RpcError {
    return new RpcError('RPC_BAD_REPLY', `bad reply: ${detail}`, { detail, cause })
  }

  static timeout (ms: number): RpcError {
    return new RpcError('RPC_TIMEOUT', `no reply within ${ms} ms`)
  }

  static closed (cause?: unknown): RpcError {
    return new RpcError('RPC_CLOSED', 'rpc channel closed', { cause })
  }

  static unknownMethod (cause?: unknown): RpcError {
    return new RpcError('RPC_UNKNOWN_METHOD', 'unknown method', { cause })
  }

  static transport (cause?: unknown): RpcError {
    const message = cause instanceof Error ? cause.message : String(cause)
    return new RpcError('RPC_TRANSPORT', `transport error: ${message}`, { cause })
  }

  static aborted (cause?: unknown): RpcError {
    return new RpcError('RPC_ABORTED', 'request aborted', { cause })
  }

  static invalidArgument (detail: string): RpcError {
    return new RpcError('RPC_INVALID_ARGUMENT', `invalid argument: ${detail}`, { detail })
  }
}

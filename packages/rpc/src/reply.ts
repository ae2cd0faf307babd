import { MAX_DETAIL_CHARS } from './constants.js'
import { clip } from './detail.js'
import { RpcError, type RpcRemoteErrorFields } from './errors.js'

/**
 * An in-band `{ error, ... }` reply as an `RPC_REMOTE_ERROR`. Unknown error
 * strings pass through (a newer panel may add some); `retryAfter` and `detail`
 * are kept when well-typed, other fields land in `extra`.
 */
export function toRemoteError (reply: Record<string, unknown>): RpcError {
  const { v: _v, error, retryAfter, detail, ...rest } = reply
  const fields: RpcRemoteErrorFields = {}
  if (typeof retryAfter === 'number' && Number.isFinite(retryAfter) && retryAfter >= 0) fields.retryAfter = retryAfter
  if (typeof detail === 'string') fields.detail = clip(detail, MAX_DETAIL_CHARS)
  if (Object.keys(rest).length > 0) fields.extra = rest
  return RpcError.remote(clip(String(error), MAX_DETAIL_CHARS), fields)
}

/** A protomux-rpc rejection as an RpcError (codes per its lib/errors.js). */
export function toTransportError (err: unknown, timeoutMs: number, channelClosed: boolean): RpcError {
  if (err instanceof RpcError) return err
  const code = (err as { code?: unknown } | null)?.code
  switch (code) {
    case 'UNKNOWN_METHOD': return RpcError.unknownMethod(err)
    case 'TIMEOUT_EXCEEDED': return RpcError.timeout(timeoutMs)
    case 'CHANNEL_CLOSED':
    case 'CHANNEL_DESTROYED': return RpcError.closed(err)
    default: return channelClosed ? RpcError.closed(err) : RpcError.transport(err)
  }
}

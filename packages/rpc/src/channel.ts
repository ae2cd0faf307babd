import ProtomuxRPC from 'protomux-rpc'
import { RpcError } from './errors.js'

/** A swarm connection (a Noise secret stream) or anything protomux can frame over. */
export type RpcConnection = object

/** A borrowed RPC channel; `release()` is idempotent. */
export interface ChannelLease {
  readonly rpc: ProtomuxRPC
  release (): void
}

interface Shared { rpc: ProtomuxRPC, refs: number }

// One ProtomuxRPC per connection (the wire uses the default protocol with no
// id, and protomux refuses a second such channel), shared by a responder and a
// client on the same connection. Keyed weakly so a dropped connection is freed.
const shared = new WeakMap<object, Shared>()

/**
 * Borrow the RPC channel of `target`. A ProtomuxRPC passed in stays the
 * caller's: releasing never closes it. A connection gets one ProtomuxRPC
 * (default protocol name, no id, default encodings) that is destroyed when the
 * last borrower releases it.
 */
export function acquireChannel (target: RpcConnection | ProtomuxRPC): ChannelLease {
  if (target instanceof ProtomuxRPC) return { rpc: target, release () {} }
  let entry = shared.get(target)
  if (entry === undefined || entry.rpc.closed) {
    entry = { rpc: openChannel(target), refs: 0 }
    shared.set(target, entry)
  }
  entry.refs++
  const owned = entry
  let released = false
  return {
    rpc: owned.rpc,
    release () {
      if (released) return
      released = true
      if (--owned.refs === 0) {
        if (shared.get(target) === owned) shared.delete(target)
        owned.rpc.destroy()
      }
    }
  }
}

function openChannel (target: RpcConnection): ProtomuxRPC {
  try {
    return new ProtomuxRPC(target)
  } catch (err) {
    if ((err as { code?: unknown }).code === 'DUPLICATE_CHANNEL') {
      throw RpcError.invalidArgument('the connection already has a protomux-rpc channel opened elsewhere; pass that ProtomuxRPC instead')
    }
    throw err
  }
}

/** The remote static public key of the stream under `rpc`, or empty bytes when the stream has none. */
export function remotePublicKeyOf (rpc: ProtomuxRPC): Uint8Array {
  const key: unknown = rpc.stream?.remotePublicKey
  return key instanceof Uint8Array ? key : new Uint8Array(0)
}

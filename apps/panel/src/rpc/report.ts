import { verifyToken } from '@arus/crypto'
import type { Reporter, Reports } from '@arus/reports'
import type { RpcErrorBody, RpcReply, RpcRequest } from '@arus/rpc'
import type { PanelContext } from '../context.js'

/**
 * report (spec 1 "Peer-to-peer RPC" problem report, "Authentication" 6): the session token
 * must verify and still be live — the account exists and is active, its tokenVersion was not
 * bumped, and the device is still enrolled. Its user and device go only into the pseudonym;
 * nothing here logs or keeps them.
 */
export function createReportHandler (ctx: PanelContext, reports: Reports) {
  return async (req: RpcRequest<'report'>): Promise<RpcReply<'report'> | RpcErrorBody> => {
    const { token, v: _v, ...input } = req
    // The whole check runs in the reports' lowest-priority lane (spec 1 "Storm behavior").
    const result = await reports.ingest(input, () => liveReporter(ctx, token))
    if ('unauthorized' in result) return { error: 'unauthorized' }
    if ('locked' in result) return { error: 'locked', retryAfter: result.retryAfter }
    return { v: 1, ...result }
  }
}

/** The token's user and device when it verifies and is still live, else null. */
async function liveReporter (ctx: PanelContext, token: string): Promise<Reporter | null> {
  let p
  try {
    p = verifyToken(token, ctx.identity.publicKey, { now: ctx.now() })
  } catch {
    return null
  }
  if (p.typ !== 'session' || typeof p.sub !== 'string' || typeof p.dev !== 'string' || typeof p.tv !== 'number') return null
  const user = await ctx.catalog.getUser(p.sub)
  const device = user?.devices.find((d) => d.deviceId === p.dev)
  if (!user || user.status !== 'active' || user.tokenVersion !== p.tv || !device || device.status !== 'active') return null
  return { userId: p.sub, deviceId: p.dev }
}

import { verifyToken } from '@arus/crypto'
import type { Reports } from '@arus/reports'
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
    let sub: string
    let dev: string
    let tv: number
    try {
      const p = verifyToken(token, ctx.identity.publicKey, { now: ctx.now() })
      if (p.typ !== 'session' || typeof p.sub !== 'string' || typeof p.dev !== 'string' || typeof p.tv !== 'number') return { error: 'unauthorized' }
      sub = p.sub
      dev = p.dev
      tv = p.tv
    } catch {
      return { error: 'unauthorized' }
    }
    const user = await ctx.catalog.getUser(sub)
    const device = user?.devices.find((d) => d.deviceId === dev)
    if (!user || user.status !== 'active' || user.tokenVersion !== tv || !device || device.status !== 'active') return { error: 'unauthorized' }
    const result = await reports.ingest(input, { userId: sub, deviceId: dev })
    if ('locked' in result) return { error: 'locked', retryAfter: result.retryAfter }
    return { v: 1, ...result }
  }
}

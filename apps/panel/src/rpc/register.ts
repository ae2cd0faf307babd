import type { StreamRecord } from '@arus/catalog'
import { fromHex, verify } from '@arus/crypto'
import { parseRegisterPayload, type RegisterPayload, type RpcErrorBody, type RpcReply, type RpcRequest } from '@arus/rpc'
import type { PanelContext } from '../context.js'
import { reconcileForStreams } from '../ops/reconcile.js'
import { resealStream } from '../ops/grants.js'
import { scopeMatches } from '../ops/publishers.js'
import { newStreamRecord } from '../ops/stream-meta.js'

/** register (spec 1 "Peer-to-peer RPC" register rules 1-4 and "Catalog record" rules 1-2). */

type Err = RpcErrorBody

/** Who may sign this payload, or the rejection. */
async function authorize (ctx: PanelContext, p: RegisterPayload, text: string, sig: Uint8Array): Promise<{ origin: string | null } | Err> {
  const bytes = new TextEncoder().encode(text)
  if (p.publisher === undefined) {
    if (!ctx.settings.legacyPublisher) return { error: 'unauthorized' }
    return verify(bytes, sig, ctx.identity.legacyPublisher.publicKey) ? { origin: null } : { error: 'unauthorized' }
  }
  const pub = await ctx.registries.publishers.get(p.publisher)
  if (!pub) return { error: 'unknown-publisher' }
  // The signature first: an unsigned payload must not learn whether a site is revoked.
  if (!verify(bytes, sig, fromHex(pub.publicKey, 32))) return { error: 'unauthorized' }
  if (pub.status === 'revoked') return { error: 'revoked' }
  if (!scopeMatches(pub.scopes, p.streamId)) return { error: 'out-of-scope' }
  return { origin: p.publisher }
}

/** The record after a register: seeds metadata once, never touches admin-owned fields or the redirect class. */
export function applyRegister (current: StreamRecord | null, p: RegisterPayload, origin: string | null): StreamRecord | Err {
  const type = p.type ?? 'live'
  let r = current ?? newStreamRecord({ title: p.title ?? p.streamId, description: p.description, category: p.category, type })
  if (r.type !== type) return { error: 'invalid-request', detail: `stream is a ${r.type} record` }
  if (r.redirect) return r // the admin owns the redirect class; a register never erases it
  const feedKey = p.feedKey
  r = { ...r, feedKey, origin, blobsKey: feedKey === r.feedKey ? r.blobsKey : null }
  if (r.type === 'live') {
    const isLive = feedKey !== null && (p.isLive ?? true)
    return { ...r, isLive, status: isLive ? 'live' as const : 'idle' as const }
  }
  return {
    ...r,
    durationSec: p.durationSec !== undefined ? p.durationSec : r.durationSec,
    status: p.status ?? (feedKey ? 'available' : 'unavailable')
  } as StreamRecord
}

export interface RegisterDeps { onFeed(streamId: string, feedKey: string): void }

export function createRegisterHandler (ctx: PanelContext, deps: RegisterDeps) {
  const lastTs = new Map<string, number>()
  return async function register (req: RpcRequest<'register'>): Promise<RpcReply<'register'> | Err> {
    const parsed = parseRegisterPayload(req.payload)
    if (!parsed.ok) return { error: 'invalid-request', detail: parsed.detail }
    const p = parsed.value
    const auth = await authorize(ctx, p, req.payload, fromHex(req.sig, 64))
    if ('error' in auth) return auth
    // Replays: a payload older than the skew window, or than the last one seen for the stream, is stale.
    const now = ctx.now()
    if (Math.abs(now - p.ts) > ctx.settings.registerMaxSkewMs || p.ts < (lastTs.get(p.streamId) ?? 0)) return { error: 'stale' }
    lastTs.set(p.streamId, p.ts)

    let result: StreamRecord | Err | null = null
    let categoryBefore: string | null = null
    const { changed } = await ctx.catalog.updateStream(p.streamId, (current) => {
      categoryBefore = current === null ? null : current.category.join('\n')
      result = applyRegister(current, p, auth.origin)
      return 'error' in result ? undefined : result
    })
    const r = result as StreamRecord | Err | null
    if (!r || 'error' in r) return r ?? { error: 'internal' }
    // A redirect channel is the admin's: the register is acknowledged and changes nothing.
    if (r.redirect) return { v: 1, ok: true, changed: false }
    const stored = await ctx.registries.streamKeys.get(p.streamId)
    if (stored !== p.key) {
      await ctx.registries.streamKeys.update((keys) => { keys[p.streamId] = p.key })
      if (stored !== null) await resealStream(ctx, p.streamId)
    }
    // A new channel, or one that changed category, may join packages: their holders get it now.
    if (stored === null || categoryBefore !== r.category.join('\n')) await reconcileForStreams(ctx, [p.streamId])
    if (r.feedKey && !r.blobsKey) deps.onFeed(p.streamId, r.feedKey)
    if (changed) ctx.log.info({ event: 'register', streamId: p.streamId, origin: auth.origin, isLive: r.type === 'live' ? r.isLive : undefined }, 'register applied')
    return { v: 1, ok: true, changed }
  }
}

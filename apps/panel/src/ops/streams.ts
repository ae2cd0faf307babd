import { z } from 'zod'
import { HttpsUrl, keys, StreamId, type StreamRecord } from '@arus/catalog'
import { fromHex, randomBytes, toHex } from '@arus/crypto'
import type { PanelContext, PanelCore } from '../context.js'
import { PanelError } from '../errors.js'
import { purgeUnusedArt } from './assets.js'
import { Hex32, Label, Order, parseStreamId } from './ids.js'
import { reconcileForStreams, reconcileUsers } from './reconcile.js'
import { applyMeta, newStreamRecord } from './stream-meta.js'
import { allUsers } from './user-scan.js'

/** Admin operations on catalog records (spec 1 "Catalog record" rules 1-7, "Streams" routes). */

export interface AddStreamInput {
  id: string
  title?: string
  description?: string
  category?: string[]
  feedKey?: string | null
  key?: string
  order?: number | null
  featured?: boolean
  url?: string
}

/** Adds a stream and its panel-private key. The key is returned once, here only. */
export async function addStream (ctx: PanelCore, input: AddStreamInput): Promise<{ stream: StreamRecord & { id: string }; key: string }> {
  const id = parseStreamId(input.id)
  if (input.url && input.feedKey) throw PanelError.invalid('a redirect url cannot be combined with a feedKey')
  const key = input.key !== undefined ? toHex(fromHex(input.key, 32)) : toHex(randomBytes(32))
  if (await ctx.catalog.getStream(id)) throw PanelError.exists(`stream "${id}"`)
  let record = newStreamRecord({ title: input.title ?? id, description: input.description, category: input.category })
  record = applyMeta(record, {
    order: input.order, featured: input.featured, feedKey: input.feedKey, url: input.url
  })
  await ctx.registries.streamKeys.update((keys) => { keys[id] = key })
  await ctx.catalog.putStream(id, record)
  ctx.activity.record({ event: 'stream.added', streamId: id, redirect: record.redirect }, 'stream added')
  await reconcileForStreams(ctx, [id])
  return { stream: { id, ...record }, key }
}

export async function getStream (ctx: PanelCore, id: string): Promise<StreamRecord & { id: string }> {
  const r = await ctx.catalog.getStream(parseStreamId(id))
  if (!r) throw PanelError.notFound(`stream "${id}"`)
  return { id, ...r }
}

export async function listStreams (ctx: PanelCore): Promise<Array<StreamRecord & { id: string }>> {
  return (await ctx.catalog.listStreams()).map(({ id, record }) => ({ id, ...record }))
}

/** Deletes a stream after an automatic config snapshot: see {@link purgeStream}. */
export async function deleteStream (ctx: PanelContext, id: string): Promise<void> {
  const record = await ctx.catalog.getStream(parseStreamId(id))
  const hadKey = (await ctx.registries.streamKeys.get(id)) !== null
  if (!record && !hadKey) throw PanelError.notFound(`stream "${id}"`)
  await ctx.snapshots.beforeDestructive(`delete stream ${id}`)
  await purgeStream(ctx, id)
}

/**
 * Full purge without a snapshot (a restore's removeExtra): catalog record, private key, every
 * grant, and art no other record uses.
 */
export async function purgeStream (ctx: PanelCore, id: string): Promise<void> {
  await purgeStreams(ctx, [parseStreamId(id)])
}

/**
 * {@link purgeStream} for many ids at once (a source's channels): one scan of the users, one
 * catalog batch, one write of each private file — not one of each per id. The ids leave every
 * group record and every manual holder's record in one reconcile, after their keys are gone (a
 * re-added id gets a fresh key: spec 1 "Catalog record" rule 5).
 */
export async function purgeStreams (ctx: PanelCore, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return
  const gone = new Set(ids)
  const holders: string[] = []
  for await (const { username, record: u } of allUsers(ctx)) if (Object.keys(u.wrapped).some((k) => gone.has(k))) holders.push(username)
  const art: string[] = []
  await ctx.catalog.batch(async (b) => {
    for (const id of gone) {
      const record = await b.get(keys.stream(id))
      if (record === null) continue
      art.push(record.poster, record.backdrop, record.logo)
      await b.del(keys.stream(id))
    }
  })
  await ctx.registries.streamKeys.update((k) => { for (const id of gone) delete k[id] })
  // Before the provenance loses the ids: a record from before packages gets its provenance from its grants.
  await reconcileUsers(ctx, holders)
  await ctx.registries.entitlements.update((users) => {
    for (const [u, e] of Object.entries(users)) if (e.manual.some((m) => gone.has(m))) users[u] = { ...e, manual: e.manual.filter((m) => !gone.has(m)) }
  })
  await purgeUnusedArt(ctx, art)
  for (const id of gone) ctx.activity.record({ event: 'stream.deleted', streamId: id }, 'stream deleted')
}

// --- schemas of these operations: the HTTP routes' request and reply, the CLI, the docs ---

export const AddStreamBody = z.strictObject({
  id: StreamId,
  title: z.string().min(1).max(200).optional(),
  description: z.string().max(4000).optional(),
  category: z.array(Label).max(16).optional(),
  feedKey: Hex32.nullable().optional(),
  key: Hex32.optional().describe('Use this stream key instead of generating one'),
  order: Order.optional(),
  featured: z.boolean().optional(),
  url: HttpsUrl.optional().describe('An https HLS URL makes a redirect channel')
})

export const StreamView = z.object({
  id: z.string(),
  v: z.number(),
  title: z.string(),
  description: z.string(),
  category: z.array(z.string()),
  type: z.enum(['live', 'vod']),
  protection: z.string(),
  isLive: z.boolean().optional(),
  durationSec: z.number().nullable().optional(),
  order: z.number().nullable(),
  featured: z.boolean(),
  restricted: z.boolean().optional(),
  poster: z.string(),
  backdrop: z.string(),
  logo: z.string(),
  feedKey: z.string().nullable(),
  blobsKey: z.string().nullable(),
  redirect: z.boolean(),
  url: z.string().nullable(),
  origin: z.string().nullable(),
  source: z.string().optional(),
  epgUrl: z.string().optional(),
  epgId: z.string().optional(),
  status: z.string()
})

export const StreamList = z.object({ streams: z.array(StreamView) })
export const AddStreamReply = z.object({ stream: StreamView, key: z.string().describe('The stream encryption key, returned this once') })

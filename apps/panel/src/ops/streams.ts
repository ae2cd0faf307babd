import type { StreamRecord } from '@arus/catalog'
import { fromHex, randomBytes, toHex } from '@arus/crypto'
import type { PanelContext, PanelCore } from '../context.js'
import { PanelError } from '../errors.js'
import { purgeUnusedArt } from './assets.js'
import { parseStreamId } from './ids.js'
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
  const record = await ctx.catalog.getStream(parseStreamId(id))
  for await (const { username, record: u } of allUsers(ctx)) {
    if (!Object.hasOwn(u.wrapped, id)) continue
    await ctx.catalog.updateUser(username, (cur) => {
      if (!cur || !Object.hasOwn(cur.wrapped, id)) return undefined
      const { [id]: _gone, ...wrapped } = cur.wrapped
      return { ...cur, wrapped }
    })
  }
  if (record) await ctx.catalog.deleteStream(id)
  await ctx.registries.streamKeys.update((keys) => { delete keys[id] })
  if (record) await purgeUnusedArt(ctx, [record.poster, record.backdrop, record.logo])
  ctx.activity.record({ event: 'stream.deleted', streamId: id }, 'stream deleted')
}

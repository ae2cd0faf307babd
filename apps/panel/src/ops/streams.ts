import { StreamId, type StreamRecord } from '@arus/catalog'
import { fromHex, randomBytes, toHex } from '@arus/crypto'
import type { PanelContext } from '../context.js'
import { PanelError } from '../errors.js'
import { purgeUnusedArt } from './art.js'
import { allUsers } from './grants.js'

/** Admin operations on catalog records (spec 1 "Catalog record" rules 1-7, "Streams" routes). */

export function parseStreamId (value: string): string {
  const r = StreamId.safeParse(value)
  if (!r.success) throw PanelError.invalid(`invalid stream id "${String(value).slice(0, 80)}": 1-64 letters, digits, _ . -`)
  return r.data
}

/** A fresh live record: the shape a register or an admin add starts from. */
export function newStreamRecord (init: { title: string; description?: string; category?: string[]; type?: 'live' | 'vod' }): StreamRecord {
  const base = {
    v: 1 as const,
    title: init.title,
    description: init.description ?? '',
    category: init.category ?? [],
    protection: 'self' as const,
    order: null,
    featured: false,
    poster: '',
    backdrop: '',
    logo: '',
    feedKey: null,
    blobsKey: null,
    redirect: false,
    url: null,
    origin: null
  }
  return init.type === 'vod'
    ? { ...base, type: 'vod', durationSec: null, status: 'unavailable' } as StreamRecord
    : { ...base, type: 'live', isLive: false, status: 'idle' } as StreamRecord
}

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
export async function addStream (ctx: PanelContext, input: AddStreamInput): Promise<{ stream: StreamRecord & { id: string }; key: string }> {
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

export interface StreamMetaPatch {
  title?: string
  description?: string
  category?: string[]
  order?: number | null
  featured?: boolean
  url?: string
  epgUrl?: string
  epgId?: string
  poster?: string
  backdrop?: string
  logo?: string
  feedKey?: string | null
  isLive?: boolean
}

/** Applies an admin patch with the defaults of rules 3-4; the writer's schema check refuses the rest. */
export function applyMeta (record: StreamRecord, patch: StreamMetaPatch): StreamRecord {
  const next: Record<string, unknown> = { ...record }
  for (const f of ['title', 'description', 'category', 'order', 'featured', 'poster', 'backdrop', 'logo'] as const) {
    if (patch[f] !== undefined) next[f] = patch[f]
  }
  if (patch.epgUrl !== undefined || patch.epgId !== undefined) {
    const url = patch.epgUrl ?? (record.epgUrl ?? '')
    const epgId = patch.epgId ?? (record.epgId ?? '')
    if (url === '' || epgId === '' || patch.epgUrl === '' || patch.epgId === '') { delete next.epgUrl; delete next.epgId } else { next.epgUrl = url; next.epgId = epgId }
  }
  if (patch.feedKey !== undefined) {
    if (patch.feedKey !== null && (patch.url || (record.redirect && patch.url !== ''))) throw PanelError.invalid('a feedKey cannot be combined with a redirect url')
    if (patch.feedKey !== record.feedKey) next.blobsKey = null
    next.feedKey = patch.feedKey === null ? null : toHex(fromHex(patch.feedKey, 32))
  }
  if (patch.url !== undefined) {
    if (patch.url === '') {
      next.redirect = false
      next.url = null
      if (record.type === 'live') next.isLive = false
    } else {
      if (record.type === 'vod') throw PanelError.invalid('a vod title cannot be a redirect channel')
      next.redirect = true
      next.url = patch.url
      next.feedKey = null
      next.blobsKey = null
      next.isLive = true
    }
  }
  if (patch.isLive !== undefined) {
    if (record.type === 'vod') throw PanelError.invalid('isLive applies to live records only')
    next.isLive = patch.isLive
  }
  if (record.type === 'live') next.status = next.isLive ? 'live' : 'idle'
  return next as StreamRecord
}

export async function setMeta (ctx: PanelContext, id: string, patch: StreamMetaPatch): Promise<StreamRecord & { id: string }> {
  parseStreamId(id)
  let out: StreamRecord | null = null
  await ctx.catalog.updateStream(id, (r) => {
    if (!r) throw PanelError.notFound(`stream "${id}"`)
    out = applyMeta(r, patch)
    return out
  })
  ctx.activity.record({ event: 'stream.updated', streamId: id, fields: Object.keys(patch).filter((k) => patch[k as keyof StreamMetaPatch] !== undefined).sort() }, 'stream updated')
  return { id, ...out! }
}

export async function getStream (ctx: PanelContext, id: string): Promise<StreamRecord & { id: string }> {
  const r = await ctx.catalog.getStream(parseStreamId(id))
  if (!r) throw PanelError.notFound(`stream "${id}"`)
  return { id, ...r }
}

export async function listStreams (ctx: PanelContext): Promise<Array<StreamRecord & { id: string }>> {
  return (await ctx.catalog.listStreams()).map(({ id, record }) => ({ id, ...record }))
}

/** Full purge: catalog record, private key, every grant, and art no other record uses. */
export async function deleteStream (ctx: PanelContext, id: string): Promise<void> {
  const record = await ctx.catalog.getStream(parseStreamId(id))
  const hadKey = (await ctx.registries.streamKeys.get(id)) !== null
  if (!record && !hadKey) throw PanelError.notFound(`stream "${id}"`)
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

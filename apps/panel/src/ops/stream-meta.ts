import { z } from 'zod'
import { ArtRef, HttpsUrl, type StreamRecord } from '@arus/catalog'
import { fromHex, toHex } from '@arus/crypto'
import type { PanelCore } from '../context.js'
import { PanelError } from '../errors.js'
import { reconcileForStreams } from './reconcile.js'
import { Hex32, Label, Order, parseStreamId } from './ids.js'

/** Stream record construction and the admin metadata patch (spec 1 "Catalog record" rules 3-4). */

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
  restricted?: boolean
}

/** Applies an admin patch with the defaults of rules 3-4; the writer's schema check refuses the rest. */
export function applyMeta (record: StreamRecord, patch: StreamMetaPatch): StreamRecord {
  const next: Record<string, unknown> = { ...record }
  for (const f of ['title', 'description', 'category', 'order', 'featured', 'poster', 'backdrop', 'logo'] as const) {
    if (patch[f] !== undefined) next[f] = patch[f]
  }
  if (patch.epgUrl !== undefined || patch.epgId !== undefined) {
    if (patch.epgUrl === '' || patch.epgId === '') {
      delete next.epgUrl
      delete next.epgId
    } else {
      // A pair: one half given for a record without the other is refused, never a silent clear.
      const url = patch.epgUrl ?? record.epgUrl
      const epgId = patch.epgId ?? record.epgId
      if (url === undefined || url === '') throw PanelError.epgIncomplete('epgUrl')
      if (epgId === undefined || epgId === '') throw PanelError.epgIncomplete('epgId')
      next.epgUrl = url
      next.epgId = epgId
    }
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
  if (patch.restricted === true) next.restricted = true
  if (patch.restricted === false) delete next.restricted
  if (patch.isLive !== undefined) {
    if (record.type === 'vod') throw PanelError.invalid('isLive applies to live records only')
    next.isLive = patch.isLive
  }
  if (record.type === 'live') next.status = next.isLive ? 'live' : 'idle'
  return next as StreamRecord
}

export async function setMeta (ctx: PanelCore, id: string, patch: StreamMetaPatch): Promise<StreamRecord & { id: string }> {
  parseStreamId(id)
  let out: StreamRecord | null = null
  let recategorized = false
  await ctx.catalog.updateStream(id, (r) => {
    if (!r) throw PanelError.notFound(`stream "${id}"`)
    out = applyMeta(r, patch)
    recategorized = out.category.join('\n') !== r.category.join('\n')
    return out
  })
  ctx.activity.record({ event: 'stream.updated', streamId: id, fields: Object.keys(patch).filter((k) => patch[k as keyof StreamMetaPatch] !== undefined).sort() }, 'stream updated')
  // Renamed into (or out of) a category: the packages naming it gain or lose the channel now.
  if (recategorized) await reconcileForStreams(ctx, [id])
  return { id, ...out! }
}

// --- schemas of these operations: the HTTP routes' request and reply, the CLI, the docs ---

const UrlOrEmpty = z.union([z.literal(''), HttpsUrl])
export const PatchStreamBody = z.strictObject({
  title: z.string().min(1).max(200).optional(),
  description: z.string().max(4000).optional(),
  category: z.array(Label).max(16).optional(),
  order: Order.optional(),
  featured: z.boolean().optional(),
  url: UrlOrEmpty.optional().describe("https sets redirect (isLive true, status 'live' unless given); '' clears it (idle)"),
  epgUrl: UrlOrEmpty.optional().describe("https schedule feed; '' clears the EPG pair; alone only when the record has an epgId (else 400 PANEL_EPG_INCOMPLETE)"),
  epgId: z.string().max(128).optional().describe("The channel id inside that feed; '' clears the EPG pair; alone only when the record has an epgUrl (else 400 PANEL_EPG_INCOMPLETE)"),
  poster: ArtRef.optional(),
  backdrop: ArtRef.optional(),
  logo: ArtRef.optional(),
  feedKey: Hex32.nullable().optional().describe('Refused together with a redirect url'),
  isLive: z.boolean().optional(),
  restricted: z.boolean().optional().describe('The parental flag (carried to apps; sticky across source syncs)')
}).refine((p) => Object.values(p).some((v) => v !== undefined), 'give at least one field')

import { z } from 'zod'
import {
  CATEGORY_MAX_ENTRIES, CATEGORY_MAX_LENGTH, DESCRIPTION_MAX, EPG_ID_MAX, ORIGIN_MAX,
  RECORD_VERSION, SOURCE_NAME_MAX, STREAM_ID_MAX, TITLE_MAX
} from '../constants.js'
import { CatalogError } from '../errors.js'
import { ArtRef, Hex32, HttpsUrl, Order } from './common.js'
import { STREAM_ID_PATTERN } from './ids.js'

// Spec: /work/shared/spec/1-panel.md "Catalog record (key catalog/<streamId>)".
// Fields shared by live and vod records. No viewerCount (derived, never stored) and never
// any key material: strict parsing refuses unknown fields such as `key` or `viewerCount`.
const common = {
  v: z.literal(RECORD_VERSION),
  title: z.string().max(TITLE_MAX),
  description: z.string().max(DESCRIPTION_MAX),
  category: z.array(z.string().min(1).max(CATEGORY_MAX_LENGTH)).max(CATEGORY_MAX_ENTRIES),
  protection: z.literal('self'),
  order: Order,
  featured: z.boolean(),
  /** The parental flag: present (true) only on restricted records, so older records stay byte-identical. */
  restricted: z.literal(true).optional(),
  poster: ArtRef,
  backdrop: ArtRef,
  logo: ArtRef,
  feedKey: Hex32.nullable(),
  blobsKey: Hex32.nullable(),
  redirect: z.boolean(),
  url: HttpsUrl.nullable(),
  origin: z.string().min(1).max(ORIGIN_MAX).nullable(),
  source: z.string().min(1).max(SOURCE_NAME_MAX).optional(),
  epgUrl: HttpsUrl.optional(),
  epgId: z.string().min(1).max(EPG_ID_MAX).optional()
}

const liveShape = {
  ...common,
  type: z.literal('live'),
  isLive: z.boolean(),
  status: z.enum(['live', 'idle'])
}

const vodShape = {
  ...common,
  type: z.literal('vod'),
  durationSec: z.number().min(0).nullable(),
  status: z.enum(['available', 'unavailable'])
}

interface ClassFields { type: 'live' | 'vod'; redirect: boolean; url: string | null; feedKey: string | null; blobsKey: string | null }

// Cross-field rules 3 and 6 of the spec section, plus blobsKey ⇒ feedKey.
function refineClass (rec: ClassFields, ctx: z.RefinementCtx): void {
  const issue = (path: string, message: string): void => { ctx.addIssue({ code: 'custom', path: [path], message }) }
  if (rec.redirect && rec.url === null) issue('url', 'a redirect record needs an https url')
  if (!rec.redirect && rec.url !== null) issue('redirect', 'a record with a url must have redirect true')
  if (rec.url !== null && rec.feedKey !== null) issue('feedKey', 'mixing a feedKey with a url is rejected; redirect records have feedKey null')
  if (rec.redirect && rec.type !== 'live') issue('type', "redirect records are type 'live'")
  if (rec.blobsKey !== null && rec.feedKey === null) issue('blobsKey', 'blobsKey needs a feedKey')
}

function build<L extends z.ZodObject, V extends z.ZodObject> (live: L, vod: V) {
  return z.discriminatedUnion('type', [live, vod]).superRefine((rec, ctx) => refineClass(rec as unknown as ClassFields, ctx))
}

/**
 * A catalog record (`catalog/<streamId>`). Live records carry `isLive` and status
 * 'live'|'idle'; vod records carry `durationSec` and status 'available'|'unavailable' and
 * no `isLive`. A redirect record has `redirect: true`, an https `url` and `feedKey: null`.
 */
export const StreamRecord = build(z.strictObject(liveShape), z.strictObject(vodShape))
export type StreamRecord = z.infer<typeof StreamRecord>
export type LiveStreamRecord = Extract<StreamRecord, { type: 'live' }>
export type VodStreamRecord = Extract<StreamRecord, { type: 'vod' }>

/** Read-side variant: same rules, unknown fields dropped instead of refused. */
export const StreamRecordLoose = build(z.object(liveShape), z.object(vodShape))

/**
 * The id of a channel imported from a remote source: `<prefix><feedId>` (spec 1 "Catalog
 * record" rule 7). Throws CATALOG_INVALID_STREAM_ID when the feed id is empty or the result
 * breaks the id rule (letters, digits, `_ . -`, at most 64 characters).
 */
export function sourceStreamId (prefix: string, feedId: string | number): string {
  if (typeof prefix !== 'string') throw CatalogError.invalidStreamId(String(prefix), 'prefix must be a string')
  const feed = typeof feedId === 'number' && Number.isSafeInteger(feedId) ? String(feedId) : feedId
  if (typeof feed !== 'string' || feed === '') throw CatalogError.invalidStreamId(prefix + String(feedId), 'the feed id must be a non-empty string or an integer')
  const id = prefix + feed
  if (id.length > STREAM_ID_MAX) throw CatalogError.invalidStreamId(id, `longer than ${STREAM_ID_MAX} characters`)
  if (!STREAM_ID_PATTERN.test(id)) throw CatalogError.invalidStreamId(id, 'only letters, digits and _ . - are allowed')
  return id
}

import { z } from 'zod'

// Protocol 2 (docs/engine-ipc.md "Protocol version"): the SDK features beyond playback that a
// mobile host reaches through the engine — problem reports, the programme guide, the VOD
// provider settings, the upload policy, prewarm and the online session check — and the
// 'upload-policy' and 'recovered' events. Kept free of the engine like the rest of the package.

const Id = z.union([z.string().max(64), z.number().int()]).optional()
const MsgId = z.union([z.string(), z.number()]).optional()

/** Spec 1 "Problem report" categories (the same list as `@arus/rpc`'s REPORT_CATEGORIES). */
export const REPORT_CATEGORIES = ['no-audio', 'black-screen', 'visual-artifacts', 'buffering', 'wrong-content', 'login', 'other'] as const
export type ReportCategory = (typeof REPORT_CATEGORIES)[number]
/** What the panel made of a report (the SDK's ReportResult status). */
export const REPORT_STATUSES = ['sent', 'collapsed', 'unsupported', 'cooldown', 'locked'] as const
export type ReportStatus = (typeof REPORT_STATUSES)[number]

/** Commands of protocol 2 (each also in `EngineCommand`). */
export const ServiceCommands = [
  // report(input): the text is cut to 300 characters by the engine (spec 1), longer is refused here.
  z.strictObject({
    cmd: z.literal('report'),
    id: Id,
    channel: z.string().min(1).max(64),
    category: z.enum(REPORT_CATEGORIES),
    text: z.string().max(4096).nullable().optional(),
    appVersion: z.string().max(64).optional(),
    platform: z.string().max(64).optional()
  }),
  // useEpg(epgUrl, epgId): the pair a `streams` item carries.
  z.strictObject({ cmd: z.literal('epg'), id: Id, epgUrl: z.string().min(1).max(2048), epgId: z.string().min(1).max(256) }),
  z.strictObject({ cmd: z.literal('vodProvider'), id: Id }),
  z.strictObject({ cmd: z.literal('setUploadPolicy'), id: Id, policy: z.enum(['reseed', 'client-only']) }),
  z.strictObject({ cmd: z.literal('prewarm'), id: Id, count: z.number().int().min(0).max(10_000).optional() }),
  z.strictObject({ cmd: z.literal('sessionLive'), id: Id })
] as const

/** One programme of the guide (ISO times). */
export interface EpgEntry { title: string; start: string; stop: string }

/** The operator's external VOD provider settings (spec 1 svcmeta/vod), as the SDK's vodProvider() gives them. */
export interface VodProvider {
  enabled: boolean
  apiBase: string
  service: string
  sources: { movies?: string; series?: string }
  params: Record<string, string>
}

/** Messages of protocol 2 (each also in `EngineMessage`). */
export type ServiceMessage =
  | { type: 'report'; channel: string; category: ReportCategory; status: ReportStatus; retryAfter?: number; id?: string | number }
  | { type: 'epg'; epgUrl: string; epgId: string; now: EpgEntry | null; next: EpgEntry[]; loaded: boolean; id?: string | number }
  | { type: 'vod-provider'; provider: VodProvider | null; id?: string | number }
  | { type: 'upload-policy'; policy: 'reseed' | 'client-only'; rejoined: number }
  | { type: 'prewarm'; warmed: number; id?: string | number }
  | { type: 'session-live'; live: boolean; id?: string | number }
  | { type: 'recovered'; message: string; code?: string }

const Entry = z.object({ title: z.string().max(1024), start: z.string().max(64), stop: z.string().max(64) })

/** Their schemas (non-strict, like every message: a later engine may add fields). */
export const ServiceMessageSchemas = [
  z.object({ type: z.literal('report'), channel: z.string(), category: z.enum(REPORT_CATEGORIES), status: z.enum(REPORT_STATUSES), retryAfter: z.number().min(0).optional(), id: MsgId }),
  z.object({ type: z.literal('epg'), epgUrl: z.string(), epgId: z.string(), now: Entry.nullable(), next: z.array(Entry).max(64), loaded: z.boolean(), id: MsgId }),
  z.object({
    type: z.literal('vod-provider'),
    provider: z.object({
      enabled: z.boolean(),
      apiBase: z.string().max(2048),
      service: z.string().max(256),
      sources: z.object({ movies: z.string().optional(), series: z.string().optional() }),
      params: z.record(z.string(), z.string())
    }).nullable(),
    id: MsgId
  }),
  z.object({ type: z.literal('upload-policy'), policy: z.enum(['reseed', 'client-only']), rejoined: z.number().int().min(0) }),
  z.object({ type: z.literal('prewarm'), warmed: z.number().int().min(0), id: MsgId }),
  z.object({ type: z.literal('session-live'), live: z.boolean(), id: MsgId }),
  z.object({ type: z.literal('recovered'), message: z.string().max(4096), code: z.string().max(64).optional() })
] as const

export const SERVICE_MESSAGE_TYPES = ['report', 'epg', 'vod-provider', 'upload-policy', 'prewarm', 'session-live', 'recovered'] as const

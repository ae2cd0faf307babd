import { z } from 'zod'

// A library title (spec 2 "Library title", "Library title state"). The definition is what the
// operator gave; the record adds what the library learned and did. Descriptive metadata seeds
// the catalog record once; afterwards it is panel-owned.

/** Title ids are stream ids: letters, digits, _ . -, 1-64 (spec 1 "Catalog record"). */
export const TitleId = z.string().regex(/^(?!__proto__$)[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - (1-64; not __proto__)')

/**
 * An input: an absolute path on the library box or an http(s) URL. Other ffmpeg protocols are
 * refused so that an input can never name a device, a concat list or a subprocess.
 */
export const TitleInput = z.string().min(1).max(4096).refine((s) => s.startsWith('/') || /^https?:\/\/[^\s]+$/i.test(s), 'an absolute path on the library box or an http(s) URL')
  // eslint-disable-next-line no-control-regex
  .refine((s) => !/[\u0000-\u001f]/.test(s), 'no control characters')

export const IngestMode = z.enum(['auto', 'copy', 'transcode'])
export type IngestMode = z.infer<typeof IngestMode>
export const HlsTime = z.number().int().min(1).max(30)

const Category = z.union([z.string().max(64), z.array(z.string().min(1).max(64)).max(16)])
  .transform((c) => (typeof c === 'string' ? c.split(',').map((s) => s.trim()).filter(Boolean) : c))

/** POST /api/titles. */
export const AddTitleInput = z.strictObject({
  id: TitleId,
  input: TitleInput,
  title: z.string().max(200).optional(),
  description: z.string().max(4000).optional(),
  category: Category.optional(),
  protection: z.string().max(64).optional(),
  mode: IngestMode.optional(),
  hlsTime: HlsTime.optional()
})
export type AddTitleInput = z.input<typeof AddTitleInput>

/** PATCH /api/titles/:id: ingest settings only (descriptive metadata is panel-owned after creation). */
export const PatchTitleInput = z.strictObject({ input: TitleInput.optional(), mode: IngestMode.optional(), hlsTime: HlsTime.optional() })
export type PatchTitleInput = z.input<typeof PatchTitleInput>

/** POST /api/titles/:id/ingest (optional body). */
export const IngestTitleInput = z.strictObject({ input: TitleInput.optional() })

export const TitleState = z.enum(['queued', 'ingesting', 'ready', 'error'])
export type TitleState = z.infer<typeof TitleState>

/** A title as titles.json keeps it (no secret: the content key is in private/title-keys.json). */
export const TitleRecord = z.object({
  id: TitleId,
  input: z.string(),
  title: z.string(),
  description: z.string(),
  category: z.array(z.string()),
  protection: z.string().nullable(),
  mode: IngestMode,
  hlsTime: HlsTime,
  state: TitleState,
  error: z.string().nullable(),
  /** Feed generation of the current (or next) ingest; each ingest mints the next one. */
  generation: z.number().int().min(0),
  /** The ready generation's feed key; null before the first successful ingest. */
  feedKey: z.string().nullable(),
  /** The generation `feedKey` belongs to. */
  feedGeneration: z.number().int().min(0).nullable(),
  durationSec: z.number().nullable(),
  segments: z.number().int().min(0),
  bytes: z.number().int().min(0),
  createdAt: z.number().int(),
  readyAt: z.number().int().nullable()
})
export type TitleRecord = z.infer<typeof TitleRecord>

/** A generation that was replaced by a re-ingest: it keeps seeding until `purgeAt`, then its cores go. */
export const RetiredFeed = z.object({ id: TitleId, generation: z.number().int(), feedKey: z.string(), purgeAt: z.number().int() })
export type RetiredFeed = z.infer<typeof RetiredFeed>

/**
 * titles.json. `unregister`: deleted titles whose 'unavailable' register the panel has not yet
 * taken. `used`: a deleted title's last feed generation, so that a title added again under its
 * id starts after it (its namespaces hold purged cores that a new drive cannot reuse).
 */
export const TitlesFile = z.object({
  v: z.literal(1),
  titles: z.record(z.string(), TitleRecord),
  retired: z.array(RetiredFeed).default([]),
  unregister: z.array(z.object({ id: TitleId, title: z.string(), category: z.array(z.string()) })).default([]),
  used: z.record(z.string(), z.number().int().min(0)).default({})
})
export type TitlesFile = z.infer<typeof TitlesFile>

/** Ingest progress of a title being ingested (memory only). */
export const IngestProgress = z.object({ phase: z.enum(['probe', 'convert', 'import']), pct: z.number().min(0).max(100) })
export type IngestProgress = z.infer<typeof IngestProgress>

/** A title as the API shows it. */
export const TitleView = TitleRecord.extend({
  ingest: IngestProgress.nullable(),
  peers: z.number().int(),
  registered: z.boolean(),
  registerError: z.string().nullable()
})
export type TitleView = z.infer<typeof TitleView>

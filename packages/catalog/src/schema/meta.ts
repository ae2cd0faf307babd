import { z } from 'zod'
import {
  LABEL_MAX, RECORD_VERSION, SERVICE_NAME_MAX, VOD_PARAM_KEY_MAX, VOD_PARAM_VALUE_MAX, VOD_PARAMS_MAX, VOD_SOURCE_MAX
} from '../constants.js'
import { Hex32, Order, isHttpsUrl } from './common.js'
import { Slug } from './ids.js'

// Spec: /work/shared/spec/1-panel.md "Other replicated and private data".

const catMetaShape = {
  v: z.literal(RECORD_VERSION),
  slug: Slug,
  label: z.string().min(1).max(LABEL_MAX).optional(),
  mergedInto: Slug.optional(),
  order: Order.optional(),
  hidden: z.boolean().optional()
}

function notSelfMerge (rec: { slug: string; mergedInto?: string | undefined }, ctx: z.RefinementCtx): void {
  if (rec.mergedInto === rec.slug) ctx.addIssue({ code: 'custom', path: ['mergedInto'], message: 'a category cannot merge into itself' })
}

/**
 * Category presentation (`catmeta/<slug>`): rename (`label`), merge (`mergedInto`),
 * rail `order` and `hidden`. Membership stays on the catalog records.
 */
export const CatMetaRecord = z.strictObject(catMetaShape).superRefine(notSelfMerge)
export type CatMetaRecord = z.infer<typeof CatMetaRecord>
export const CatMetaRecordLoose = z.object(catMetaShape).superRefine(notSelfMerge)

/** apiBase: '' (not configured) or https without query, fragment or embedded credentials. */
const ApiBase = z.string().refine(
  (s) => s === '' || isHttpsUrl(s, { query: false, fragment: false, credentials: false }),
  'must be an https URL without query string, fragment or embedded credentials'
)

const sourcesShape = {
  movies: z.string().min(1).max(VOD_SOURCE_MAX).optional(),
  series: z.string().min(1).max(VOD_SOURCE_MAX).optional()
}

const Params = z.record(z.string().min(1).max(VOD_PARAM_KEY_MAX), z.string().max(VOD_PARAM_VALUE_MAX))
  .refine((p) => Object.keys(p).length <= VOD_PARAMS_MAX, `at most ${VOD_PARAMS_MAX} params`)

const vodShape = {
  v: z.literal(RECORD_VERSION),
  enabled: z.boolean(),
  apiBase: ApiBase,
  service: z.string().max(SERVICE_NAME_MAX),
  params: Params
}

function enabledNeedsBase (rec: { enabled: boolean; apiBase: string; service: string }, ctx: z.RefinementCtx): void {
  if (!rec.enabled) return
  if (rec.apiBase === '') ctx.addIssue({ code: 'custom', path: ['apiBase'], message: 'enabled needs an apiBase' })
  if (rec.service === '') ctx.addIssue({ code: 'custom', path: ['service'], message: 'enabled needs a service' })
}

/**
 * External VOD provider settings (`svcmeta/vod`); absent (null) until configured.
 * `enabled: true` needs a non-empty `apiBase` and `service`.
 */
export const VodConfigRecord = z.strictObject({ ...vodShape, sources: z.strictObject(sourcesShape) })
  .superRefine(enabledNeedsBase)
export type VodConfigRecord = z.infer<typeof VodConfigRecord>
export const VodConfigRecordLoose = z.object({ ...vodShape, sources: z.object(sourcesShape) })
  .superRefine(enabledNeedsBase)

const panelMetaShape = {
  v: z.literal(RECORD_VERSION),
  assetsKey: Hex32.nullable(),
  serviceName: z.string().max(SERVICE_NAME_MAX)
}

/**
 * The panel's public metadata (`meta/panel`): the assets drive key, the service name and, from
 * issue 40 on, the newest login key schedule the panel accepts a re-key to (`keySchedule`;
 * absent: the panel predates re-keying, and a client must not offer one).
 */
export const PanelMetaRecord = z.strictObject({ ...panelMetaShape, keySchedule: z.literal(2).optional() })
export type PanelMetaRecord = z.infer<typeof PanelMetaRecord>
export const PanelMetaRecordLoose = z.object({ ...panelMetaShape, keySchedule: z.int().min(1).max(255).optional() })

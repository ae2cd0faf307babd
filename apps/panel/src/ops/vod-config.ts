import { z } from 'zod'
import { VodConfigRecord } from '@arus/catalog'
import type { PanelCore } from '../context.js'
import { PanelError } from '../errors.js'

/**
 * The external VOD provider settings (spec 1 "Other replicated and private data": svcmeta/vod;
 * the VOD provider settings routes). Null until configured; viewers read it at their next
 * login. A PATCH merges: `sources` and `params` each replace their whole map.
 */

// --- schemas of these operations: the HTTP routes' request and reply, the CLI, the docs ---

export const VodSources = z.strictObject({
  movies: z.string().max(200).optional().describe("'' clears it"),
  series: z.string().max(200).optional().describe("'' clears it")
})
export const PatchVodConfigBody = z.strictObject({
  enabled: z.boolean().optional(),
  apiBase: z.string().max(2000).optional().describe('https, no query string, no embedded credentials'),
  service: z.string().max(200).optional(),
  sources: VodSources.optional().describe('Replaces the whole map'),
  params: z.record(z.string().min(1).max(64), z.string().max(1024)).optional().describe('Replaces the whole map')
}).refine((p) => Object.values(p).some((v) => v !== undefined), 'give at least one field')
export const VodConfigView = z.object({
  enabled: z.boolean(),
  apiBase: z.string(),
  service: z.string(),
  sources: z.object({ movies: z.string().optional(), series: z.string().optional() }),
  params: z.record(z.string(), z.string())
})
export const VodConfigReply = z.object({ vodConfig: VodConfigView.nullable().describe('null until configured') })

type View = z.infer<typeof VodConfigView>

const view = (r: VodConfigRecord | null): View | null => (r === null ? null : { enabled: r.enabled, apiBase: r.apiBase, service: r.service, sources: { ...r.sources }, params: { ...r.params } })

export async function getVodConfig (ctx: PanelCore): Promise<View | null> {
  return view(await ctx.catalog.getVodConfig())
}

/** Merges `patch` into the record (an unchanged result writes nothing). */
export async function setVodConfig (ctx: PanelCore, patch: z.input<typeof PatchVodConfigBody>): Promise<View> {
  const p = PatchVodConfigBody.parse(patch)
  const cur = await ctx.catalog.getVodConfig()
  const sources = p.sources === undefined
    ? { ...cur?.sources }
    : Object.fromEntries(Object.entries(p.sources).filter(([, v]) => v !== undefined && v !== ''))
  const next = {
    v: 1 as const,
    enabled: p.enabled ?? cur?.enabled ?? false,
    apiBase: p.apiBase ?? cur?.apiBase ?? '',
    service: p.service ?? cur?.service ?? '',
    sources,
    params: p.params ?? { ...cur?.params }
  }
  const checked = VodConfigRecord.safeParse(next)
  if (!checked.success) {
    const issue = checked.error.issues[0]
    throw PanelError.invalid(`vod config ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`)
  }
  const { changed } = await ctx.catalog.putVodConfig(checked.data)
  if (changed) ctx.activity.record({ event: 'vod-config.updated', fields: Object.keys(patch).sort() }, 'vod provider settings updated')
  return view(checked.data)!
}

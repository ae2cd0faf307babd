import { z } from 'zod'
import { HttpsUrl, keys, type StreamRecord } from '@arus/catalog'
import type { PanelContext, PanelCore } from '../context.js'
import { PanelError } from '../errors.js'
import { SourceEntry, type SourceState } from '../registries.js'
import { purgeStreams } from './streams.js'

/**
 * Remote sources (spec 1 "Remote source", the Sources routes, "Source sync policy"): a
 * provider's lineup (JSON feed or M3U playlist) imported as redirect channels named
 * `<prefix><id>`, kept in step by syncs that write only what changed (source-sync.ts).
 */

/** The sync period when none is given: four times a day. */
export const DEFAULT_SOURCE_INTERVAL_MS = 6 * 3_600_000

const NAME = /^(?!__proto__$)[A-Za-z0-9_.-]{1,64}$/

// --- schemas of these operations: the HTTP routes' request and reply, the CLI, the docs ---

export const SourceName = z.string().regex(NAME, '1-64 letters, digits, _ . -')
const Exclude = z.array(z.object({ id: z.string().min(1).max(64), title: z.string().max(200).default('') })).max(10_000)
export const AddSourceBody = z.strictObject({
  name: SourceName,
  url: HttpsUrl.describe('The feed: a JSON feed or an M3U playlist over https'),
  category: z.string().min(1).max(64).describe('Label given to every imported channel'),
  prefix: z.string().max(40).optional().describe("Stream id prefix (default '<name>.')"),
  autoGrant: z.boolean().optional().describe('Grant every imported channel to every user (default true)'),
  enabled: z.boolean().optional().describe('false pauses the schedule (default true)'),
  intervalMs: z.int().min(60_000).max(30 * 86_400_000).optional().describe(`Sync period (default ${DEFAULT_SOURCE_INTERVAL_MS} ms)`)
})
export const PatchSourceBody = z.strictObject({
  url: HttpsUrl.optional().describe('Re-reads the full feed at the next sync (the ETag is not sent)'),
  category: z.string().min(1).max(64).optional().describe('Re-reads the full feed at the next sync'),
  prefix: z.string().max(40).optional().describe('Re-reads the full feed at the next sync: the channels move to the new ids'),
  autoGrant: z.boolean().optional(),
  enabled: z.boolean().optional(),
  intervalMs: z.int().min(60_000).max(30 * 86_400_000).optional(),
  exclude: Exclude.optional().describe('Deselected feed entries {id, title}; re-reads the full feed at the next sync')
}).refine((p) => Object.values(p).some((v) => v !== undefined), 'give at least one field')
export const SyncReport = z.object({
  added: z.array(z.string()),
  updated: z.array(z.string()),
  removed: z.array(z.string()),
  skipped: z.array(z.object({ feedId: z.string().nullable(), reason: z.string() })).describe('Entries not imported, with why (no id, bad or duplicate id, url not https)'),
  // Reports stored before this field read as none.
  dropped: z.array(z.object({ feedId: z.string(), id: z.string(), field: z.enum(['logo']), reason: z.string() })).default([])
    .describe('Entries imported without a field the catalog refuses: an invalid logo loses only the art'),
  conflicts: z.array(z.object({ id: z.string(), reason: z.string() })),
  granted: z.number().int().describe('Grants sealed by this sync (auto-grant applies at every sync, 304 included)'),
  notModified: z.boolean().describe('HTTP 304 on the stored ETag: nothing read, no channel written')
})
export type SyncReport = z.infer<typeof SyncReport>
export const SourceView = SourceEntry.extend({
  name: z.string(),
  channels: z.number().int().describe('Channels this source owns'),
  lastSync: z.object({ at: z.number(), report: SyncReport }).nullable(),
  lastError: z.object({ at: z.number(), message: z.string() }).nullable()
})
export type SourceView = z.infer<typeof SourceView>
export const SourceList = z.object({ sources: z.array(SourceView) })
export const SourceChannels = z.object({
  channels: z.array(z.object({ feedId: z.string(), id: z.string(), title: z.string(), order: z.number().nullable(), excluded: z.boolean() }))
})

type RegistryCtx = Pick<PanelCore, 'registries' | 'activity'>

/** The named source, or PANEL_NOT_FOUND. */
export const mustSource = (map: Record<string, SourceEntry>, name: string): SourceEntry => {
  if (!Object.hasOwn(map, name)) throw PanelError.notFound(`source "${name}"`)
  return map[name]!
}

/** The state of a source never synced. */
export const EMPTY_SOURCE_STATE: SourceState = { etag: null, lastSync: null, lastError: null }

function view (name: string, s: SourceEntry, state: SourceState | undefined, channels: number): SourceView {
  const st = state ?? EMPTY_SOURCE_STATE
  return { name, ...s, channels, lastSync: st.lastSync as SourceView['lastSync'], lastError: st.lastError }
}

/** The imported channels, by the name of the source that owns them. */
export async function ownedBySource (ctx: PanelCore): Promise<Map<string, Array<{ id: string; record: StreamRecord }>>> {
  const out = new Map<string, Array<{ id: string; record: StreamRecord }>>()
  for (const e of await ctx.catalog.listStreams()) {
    if (e.record.source === undefined) continue
    const list = out.get(e.record.source) ?? []
    list.push(e)
    out.set(e.record.source, list)
  }
  return out
}

export async function listSources (ctx: PanelCore): Promise<SourceView[]> {
  const sources = await ctx.registries.sources.all()
  const state = await ctx.registries.sourceState.all()
  const counts = await ownedBySource(ctx)
  return Object.entries(sources).sort(([a], [b]) => (a < b ? -1 : 1)).map(([n, s]) => view(n, s, state[n], counts.get(n)?.length ?? 0))
}

export async function getSource (ctx: PanelCore, name: string): Promise<SourceView> {
  const s = mustSource(await ctx.registries.sources.all(), name)
  return view(name, s, (await ctx.registries.sourceState.all())[name], (await ownedBySource(ctx)).get(name)?.length ?? 0)
}

/** Registers a source (registry only: safe beside a running panel; the caller syncs). */
export async function writeNewSource (ctx: RegistryCtx, input: z.input<typeof AddSourceBody>): Promise<SourceEntry & { name: string }> {
  const p = AddSourceBody.parse(input)
  const entry: SourceEntry = {
    url: p.url, category: p.category, prefix: p.prefix ?? `${p.name}.`, autoGrant: p.autoGrant ?? true, enabled: p.enabled ?? true,
    intervalMs: p.intervalMs ?? DEFAULT_SOURCE_INTERVAL_MS, exclude: [], createdAt: Date.now()
  }
  await ctx.registries.sources.update((map) => {
    if (Object.hasOwn(map, p.name)) throw PanelError.exists(`source "${p.name}"`)
    map[p.name] = entry
  })
  ctx.activity.record({ event: 'source.added', source: p.name }, 'source added')
  return { name: p.name, ...entry }
}

/**
 * Edits a source (registry only). An edit of url, prefix, category or exclude makes the next
 * sync re-read the full feed: the stored ETag only holds for the fields it was fetched under
 * (`syncInputs` in source-sync.ts), whichever door edits them.
 */
export async function writeSourcePatch (ctx: RegistryCtx, name: string, patch: z.input<typeof PatchSourceBody>): Promise<SourceEntry & { name: string }> {
  const p = PatchSourceBody.parse(patch)
  const next = await ctx.registries.sources.update((map) => {
    const cur = mustSource(map, name)
    map[name] = {
      ...cur,
      ...(p.url !== undefined ? { url: p.url } : {}),
      ...(p.category !== undefined ? { category: p.category } : {}),
      ...(p.prefix !== undefined ? { prefix: p.prefix } : {}),
      ...(p.autoGrant !== undefined ? { autoGrant: p.autoGrant } : {}),
      ...(p.enabled !== undefined ? { enabled: p.enabled } : {}),
      ...(p.intervalMs !== undefined ? { intervalMs: p.intervalMs } : {}),
      ...(p.exclude !== undefined ? { exclude: p.exclude.map((e) => ({ id: e.id, title: e.title ?? '' })) } : {})
    }
    return map[name]!
  })
  ctx.activity.record({ event: 'source.updated', source: name }, 'source updated')
  return { name, ...next }
}

/** Edits a source; newly excluded entries are purged at once (rule 7). */
export async function setSource (ctx: PanelCore, name: string, patch: z.input<typeof PatchSourceBody>): Promise<SourceView> {
  const s = await writeSourcePatch(ctx, name, patch)
  await purgeExcluded(ctx, name, s)
  return getSource(ctx, name)
}

/** Purges the owned channels an exclude list now names; resolves their ids. */
export async function purgeExcluded (ctx: PanelCore, name: string, s: SourceEntry): Promise<string[]> {
  const excluded = new Set(s.exclude.map((e) => s.prefix + e.id))
  const gone = ((await ownedBySource(ctx)).get(name) ?? []).map((e) => e.id).filter((id) => excluded.has(id))
  await purgeStreams(ctx, gone)
  return gone
}

/** The channels a source owns, with their feed id (the id without the prefix). */
export async function sourceChannels (ctx: PanelCore, name: string): Promise<z.infer<typeof SourceChannels>['channels']> {
  const s = mustSource(await ctx.registries.sources.all(), name)
  const mine = (await ownedBySource(ctx)).get(name) ?? []
  const rows = mine.map(({ id, record }) => ({ feedId: id.startsWith(s.prefix) ? id.slice(s.prefix.length) : id, id, title: record.title, order: record.order, excluded: false }))
  for (const e of s.exclude) rows.push({ feedId: e.id, id: s.prefix + e.id, title: e.title, order: null, excluded: true })
  return rows.sort((a, b) => (a.order ?? 1e9) - (b.order ?? 1e9) || (a.id < b.id ? -1 : 1))
}

/** Strips the source mark from `entries`: they stay as manual channels (spec 1 "Remote source" rule 5, "detached"). */
async function detachChannels (ctx: PanelCore, entries: ReadonlyArray<{ id: string; record: StreamRecord }>): Promise<void> {
  if (entries.length === 0) return
  await ctx.catalog.batch(async (b) => {
    for (const { id, record } of entries) {
      const { source: _s, ...manual } = record
      await b.put(keys.stream(id), manual as StreamRecord)
    }
  })
}

/**
 * Removes a source (after a config snapshot): its channels are purged, grants included — or,
 * with `keepChannels`, detached as manual redirect channels.
 */
export async function removeSource (ctx: PanelContext, name: string, opts: { keepChannels?: boolean } = {}): Promise<{ purged: number; detached: number }> {
  mustSource(await ctx.registries.sources.all(), name)
  await ctx.snapshots.beforeDestructive(`remove source ${name}`)
  const mine = (await ownedBySource(ctx)).get(name) ?? []
  await ctx.registries.sources.update((map) => { delete map[name] })
  await ctx.registries.sourceState.update((m) => { delete m[name] })
  await ctx.registries.sourceRemovals.update((m) => { delete m[name] })
  if (opts.keepChannels === true) await detachChannels(ctx, mine)
  else await purgeStreams(ctx, mine.map((e) => e.id))
  ctx.activity.record({ event: 'source.removed', source: name, count: mine.length }, opts.keepChannels === true ? 'source removed, channels detached' : 'source removed, channels purged')
  return opts.keepChannels === true ? { purged: 0, detached: mine.length } : { purged: mine.length, detached: 0 }
}

/**
 * The registry side of {@link removeSource}, beside a running panel (it holds the store): the
 * removal is recorded first, then the source entry goes; the panel's scheduler applies it to
 * the channels ({@link applySourceRemovals}).
 */
export async function writeSourceRemoval (ctx: RegistryCtx, name: string, opts: { keepChannels?: boolean } = {}): Promise<void> {
  mustSource(await ctx.registries.sources.all(), name)
  await ctx.registries.sourceRemovals.update((m) => { m[name] = { at: Date.now(), keepChannels: opts.keepChannels === true } })
  await ctx.registries.sources.update((map) => { delete map[name] })
  ctx.activity.record({ event: 'source.removed', source: name }, opts.keepChannels === true ? 'source removed, channels to detach' : 'source removed, channels to purge')
}

/** Applies the removals recorded beside the running panel (sources no longer registered); resolves what each did. */
export async function applySourceRemovals (ctx: PanelCore): Promise<Array<{ source: string; purged: number; detached: number }>> {
  const pending = Object.entries(await ctx.registries.sourceRemovals.all())
  if (pending.length === 0) return []
  const sources = await ctx.registries.sources.all()
  const owned = await ownedBySource(ctx)
  const done: Array<{ source: string; purged: number; detached: number }> = []
  for (const [name, removal] of pending) {
    // Registered again before the panel got to it: the new source owns the channels.
    if (!Object.hasOwn(sources, name)) {
      const mine = owned.get(name) ?? []
      if (removal.keepChannels) await detachChannels(ctx, mine)
      else await purgeStreams(ctx, mine.map((e) => e.id))
      await ctx.registries.sourceState.update((m) => { delete m[name] })
      done.push({ source: name, purged: removal.keepChannels ? 0 : mine.length, detached: removal.keepChannels ? mine.length : 0 })
    }
    await ctx.registries.sourceRemovals.update((m) => { if (m[name]?.at === removal.at) delete m[name] })
  }
  return done
}

/** Purges the channels still carrying the name of a source that is no longer registered; resolves how many. */
export async function purgeOrphans (ctx: PanelCore, name: string): Promise<number> {
  if (Object.hasOwn(await ctx.registries.sources.all(), name)) return 0
  const mine = (await ownedBySource(ctx)).get(name) ?? []
  await purgeStreams(ctx, mine.map((e) => e.id))
  return mine.length
}

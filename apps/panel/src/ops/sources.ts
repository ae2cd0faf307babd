import { z } from 'zod'
import { HttpsUrl, keys, type StreamRecord } from '@arus/catalog'
import { randomBytes, toHex } from '@arus/crypto'
import type { PanelContext, PanelCore } from '../context.js'
import { PanelError } from '../errors.js'
import { SourceEntry, type SourceState } from '../registries.js'
import { FeedParseError, parseFeed, type FeedEntry } from '../sources/parse.js'
import { PullError, pullFeed, redactUrl } from '../sources/pull.js'
import { reconcileForStreams, reconcileUsers } from './entitlements.js'
import { newStreamRecord } from './stream-meta.js'
import { purgeStreams } from './streams.js'

/**
 * Remote sources (spec 1 "Remote source", the Sources routes, "Source sync policy"): a
 * provider's lineup (JSON feed or M3U playlist) imported as redirect channels named
 * `<prefix><id>`, kept in step by syncs that write only what changed.
 */

/** The sync period when none is given: four times a day. */
export const DEFAULT_SOURCE_INTERVAL_MS = 6 * 3_600_000

const NAME = /^[A-Za-z0-9_.-]{1,64}$/

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
  url: HttpsUrl.optional().describe('Resets the ETag'),
  category: z.string().min(1).max(64).optional(),
  prefix: z.string().max(40).optional(),
  autoGrant: z.boolean().optional(),
  enabled: z.boolean().optional(),
  intervalMs: z.int().min(60_000).max(30 * 86_400_000).optional(),
  exclude: Exclude.optional().describe('Deselected feed entries {id, title}; resets the ETag')
}).refine((p) => Object.values(p).some((v) => v !== undefined), 'give at least one field')
export const SyncReport = z.object({
  added: z.array(z.string()),
  updated: z.array(z.string()),
  removed: z.array(z.string()),
  skipped: z.array(z.object({ feedId: z.string().nullable(), reason: z.string() })),
  conflicts: z.array(z.object({ id: z.string(), reason: z.string() })),
  granted: z.number().int().describe('Grants sealed by auto-grant'),
  notModified: z.boolean().describe('HTTP 304 on the stored ETag: nothing read, nothing written')
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

const must = (map: Record<string, SourceEntry>, name: string): SourceEntry => {
  if (!Object.hasOwn(map, name)) throw PanelError.notFound(`source "${name}"`)
  return map[name]!
}

const EMPTY_STATE: SourceState = { etag: null, lastSync: null, lastError: null }

function view (name: string, s: SourceEntry, state: SourceState | undefined, channels: number): SourceView {
  const st = state ?? EMPTY_STATE
  return { name, ...s, channels, lastSync: st.lastSync as SourceView['lastSync'], lastError: st.lastError }
}

async function owned (ctx: PanelCore): Promise<Map<string, Array<{ id: string; record: StreamRecord }>>> {
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
  const counts = await owned(ctx)
  return Object.entries(sources).sort(([a], [b]) => (a < b ? -1 : 1)).map(([n, s]) => view(n, s, state[n], counts.get(n)?.length ?? 0))
}

export async function getSource (ctx: PanelCore, name: string): Promise<SourceView> {
  const s = must(await ctx.registries.sources.all(), name)
  return view(name, s, (await ctx.registries.sourceState.all())[name], (await owned(ctx)).get(name)?.length ?? 0)
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

/** Edits a source (registry only). A new url or exclude list resets the ETag, so the next sync reads the feed. */
export async function writeSourcePatch (ctx: RegistryCtx, name: string, patch: z.input<typeof PatchSourceBody>): Promise<SourceEntry & { name: string }> {
  const p = PatchSourceBody.parse(patch)
  const next = await ctx.registries.sources.update((map) => {
    const cur = must(map, name)
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
  if (p.url !== undefined || p.exclude !== undefined) {
    await ctx.registries.sourceState.update((m) => { if (m[name] !== undefined) m[name] = { ...m[name], etag: null } })
  }
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
  const gone = ((await owned(ctx)).get(name) ?? []).map((e) => e.id).filter((id) => excluded.has(id))
  await purgeStreams(ctx, gone)
  return gone
}

/** The channels a source owns, with their feed id (the id without the prefix). */
export async function sourceChannels (ctx: PanelCore, name: string): Promise<z.infer<typeof SourceChannels>['channels']> {
  const s = must(await ctx.registries.sources.all(), name)
  const mine = (await owned(ctx)).get(name) ?? []
  const rows = mine.map(({ id, record }) => ({ feedId: id.startsWith(s.prefix) ? id.slice(s.prefix.length) : id, id, title: record.title, order: record.order, excluded: false }))
  for (const e of s.exclude) rows.push({ feedId: e.id, id: s.prefix + e.id, title: e.title, order: null, excluded: true })
  return rows.sort((a, b) => (a.order ?? 1e9) - (b.order ?? 1e9) || (a.id < b.id ? -1 : 1))
}

/**
 * Removes a source (after a config snapshot): its channels are purged, grants included — or,
 * with `keepChannels`, detached as manual redirect channels.
 */
export async function removeSource (ctx: PanelContext, name: string, opts: { keepChannels?: boolean } = {}): Promise<{ purged: number; detached: number }> {
  must(await ctx.registries.sources.all(), name)
  await ctx.snapshots.beforeDestructive(`remove source ${name}`)
  const mine = (await owned(ctx)).get(name) ?? []
  await ctx.registries.sources.update((map) => { delete map[name] })
  await ctx.registries.sourceState.update((m) => { delete m[name] })
  if (opts.keepChannels === true) {
    await ctx.catalog.batch(async (b) => {
      for (const { id, record } of mine) {
        const { source: _s, ...manual } = record
        await b.put(keys.stream(id), manual as StreamRecord)
      }
    })
  } else {
    await purgeStreams(ctx, mine.map((e) => e.id))
  }
  ctx.activity.record({ event: 'source.removed', source: name, count: mine.length }, opts.keepChannels === true ? 'source removed, channels detached' : 'source removed, channels purged')
  return opts.keepChannels === true ? { purged: 0, detached: mine.length } : { purged: mine.length, detached: 0 }
}

/** Purges the channels still carrying the name of a source that is no longer registered; resolves how many. */
export async function purgeOrphans (ctx: PanelCore, name: string): Promise<number> {
  if (Object.hasOwn(await ctx.registries.sources.all(), name)) return 0
  const mine = (await owned(ctx)).get(name) ?? []
  await purgeStreams(ctx, mine.map((e) => e.id))
  return mine.length
}

/** A new imported record: a redirect channel owned by the source. */
function imported (name: string, category: string, e: FeedEntry): StreamRecord {
  const base = newStreamRecord({ title: e.title, description: e.description, category: [category] })
  return {
    ...base,
    order: e.position,
    logo: e.logo,
    redirect: true,
    url: e.url,
    isLive: true,
    status: 'live',
    source: name,
    ...(e.epgUrl !== undefined && e.epgId !== undefined ? { epgUrl: e.epgUrl, epgId: e.epgId } : {})
  } as StreamRecord
}

/** The feed wins on title, url, logo, order and category; featured, restricted, isLive and the description stick (rule 4). */
function refreshed (cur: StreamRecord, category: string, e: FeedEntry): StreamRecord {
  const next: Record<string, unknown> = { ...cur, title: e.title, url: e.url, logo: e.logo, order: e.position, category: [category], redirect: true, feedKey: null, blobsKey: null }
  if (e.epgUrl !== undefined && e.epgId !== undefined) { next.epgUrl = e.epgUrl; next.epgId = e.epgId }
  return next as StreamRecord
}

/**
 * Pulls, diffs and applies one source now (rules 1-9). An unchanged feed or a 304 writes
 * nothing to the catalog; a failed pull keeps the last good state, records the error and
 * throws PANEL_SOURCE_SYNC with a message that never holds the feed's full URL.
 */
export async function syncSource (ctx: PanelCore, name: string): Promise<SyncReport> {
  const source = must(await ctx.registries.sources.all(), name)
  const state = (await ctx.registries.sourceState.all())[name] ?? EMPTY_STATE
  const report: SyncReport = { added: [], updated: [], removed: [], skipped: [], conflicts: [], granted: 0, notModified: false }
  const fail = async (message: string): Promise<never> => {
    await ctx.registries.sourceState.update((m) => { m[name] = { ...(m[name] ?? EMPTY_STATE), lastError: { at: Date.now(), message } } })
    ctx.log.warn({ event: 'source.sync-failed', source: name, err: message }, 'source sync failed; the last good state stays')
    throw new PanelError('PANEL_SOURCE_SYNC', `source ${name}: ${message}`)
  }
  let pulled
  try {
    pulled = await pullFeed(source.url, { etag: state.etag, maxBytes: ctx.settings.sources.maxBytes, timeoutMs: ctx.settings.sources.pullTimeoutMs })
  } catch (err) {
    return fail(err instanceof PullError ? err.message : `${redactUrl(source.url)}: request failed`)
  }
  if (pulled.status === 304) {
    report.notModified = true
    await ctx.registries.sourceState.update((m) => { m[name] = { ...(m[name] ?? EMPTY_STATE), lastSync: { at: Date.now(), report }, lastError: null } })
    return report
  }
  let feed
  try {
    feed = parseFeed(pulled.body, source.prefix)
  } catch (err) {
    return fail(err instanceof FeedParseError ? err.message : 'unreadable feed')
  }
  if (feed.entries.length + feed.skipped.length > ctx.settings.sources.maxChannels) {
    return fail(`feed has ${feed.entries.length + feed.skipped.length} entries, more than SOURCES_MAX_CHANNELS (${ctx.settings.sources.maxChannels})`)
  }
  report.skipped = feed.skipped
  const excluded = new Set(source.exclude.map((e) => e.id))
  const keep = new Set<string>()
  // One atomic catalog batch for the whole feed (a 5,000-entry feed is one append, not 5,000);
  // compare-before-write still holds inside it, so an unchanged feed stages nothing.
  await ctx.catalog.batch(async (b) => {
    const newKeys: Record<string, string> = {}
    for (const e of feed.entries) {
      if (excluded.has(e.feedId)) continue
      const cur = await b.get(keys.stream(e.id))
      if (cur !== null && cur.source !== name) {
        report.conflicts.push({ id: e.id, reason: cur.source === undefined ? 'a manual channel has this id' : `source ${cur.source} owns this id` })
        continue
      }
      keep.add(e.id)
      if (cur === null) {
        await b.put(keys.stream(e.id), imported(name, source.category, e))
        newKeys[e.id] = toHex(randomBytes(32))
        report.added.push(e.id)
        continue
      }
      if (await b.put(keys.stream(e.id), refreshed(cur, source.category, e))) report.updated.push(e.id)
    }
    // Keys first: a record must never be without its key (a key without a record is purged with the id).
    if (Object.keys(newKeys).length > 0) await ctx.registries.streamKeys.update((keys) => { for (const [id, k] of Object.entries(newKeys)) keys[id] ??= k })
  })
  // Left the feed, or excluded (rules 5 and 7): a full purge, grants included.
  report.removed = ((await owned(ctx)).get(name) ?? []).map((e) => e.id).filter((id) => !keep.has(id))
  await purgeStreams(ctx, report.removed)
  if (report.added.length > 0 || report.removed.length > 0) {
    // Auto-granted channels are due to everyone; otherwise only package holders can gain them
    // (removed channels already left every user with purgeStreams).
    const r = source.autoGrant ? await reconcileUsers(ctx, 'all') : await reconcileForStreams(ctx, report.added)
    report.granted = r?.granted ?? 0
  }
  await ctx.registries.sourceState.update((m) => { m[name] = { etag: pulled.etag, lastSync: { at: Date.now(), report }, lastError: null } })
  ctx.activity.record({ event: 'source.synced', source: name, count: report.added.length + report.updated.length + report.removed.length }, 'source synced')
  return report
}

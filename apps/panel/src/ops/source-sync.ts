import { CatalogError, keys, StreamRecord } from '@arus/catalog'
import { blake2b256, randomBytes, toHex } from '@arus/crypto'
import type { PanelCore } from '../context.js'
import { PanelError } from '../errors.js'
import type { SourceEntry, SourceState } from '../registries.js'
import { FeedParseError, parseFeed, type FeedEntry } from '../sources/parse.js'
import { PullError, pullFeed, redactUrl } from '../sources/pull.js'
import { reconcileForStreams, reconcileUsers } from './reconcile.js'
import { EMPTY_SOURCE_STATE, mustSource, ownedBySource, type SyncReport } from './sources.js'
import { newStreamRecord } from './stream-meta.js'
import { purgeStreams } from './streams.js'

/**
 * One sync of a remote source (spec 1 "Source sync policy" rules 1-9): pull, diff, write what
 * changed, grant. Every failure — a known one (pull, oversize, unreadable feed) or any other —
 * is recorded on the source (`lastError`, the consecutive failure count the scheduler backs
 * off on), logged, and thrown as PANEL_SOURCE_SYNC (502).
 */

/** A known reason a sync fails; its message is safe to show (no feed URL query). */
class SyncFailure extends Error {}

/**
 * The source fields a sync writes from (url, prefix, category, exclude), hashed: the stored
 * ETag is only sent while they are what it was fetched under, so an edit of any of them —
 * through the API, the CLI or a config restore — re-reads the full feed instead of meeting a 304.
 * autoGrant is not among them: grants are applied at every sync, 304 included (rule 6).
 */
export function syncInputs (s: SourceEntry): string {
  const inputs = JSON.stringify([s.url, s.prefix, s.category, s.exclude.map((e) => e.id).sort()])
  return toHex(blake2b256(new TextEncoder().encode(inputs))).slice(0, 32)
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

/** Why the catalog would refuse `record`, or null. The parser already checks each field; this keeps one entry from failing the batch should they ever disagree. */
function refusal (record: StreamRecord): string | null {
  const r = StreamRecord.safeParse(record)
  return r.success ? null : `refused by the catalog: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`
}

/** An error's message as it may be shown and logged: every URL in it cut to scheme, host and path. */
function shownMessage (err: unknown): string {
  if (err instanceof SyncFailure || err instanceof PullError || err instanceof FeedParseError) return err.message
  const code = (err as { code?: unknown } | null)?.code
  const message = err instanceof Error ? err.message.replace(/https?:\/\/[^\s"'<>]+/gi, (u) => redactUrl(u)) : String(err)
  return err instanceof CatalogError || typeof code !== 'string' ? `sync failed: ${message}` : `sync failed: ${code}: ${message}`
}

/** Auto-grant at each sync (rule 6): every user reconciled; an unchanged user is never written. */
async function autoGrant (ctx: PanelCore, source: SourceEntry, added: readonly string[], changed: boolean): Promise<number> {
  if (source.autoGrant) return (await reconcileUsers(ctx, 'all')).granted
  // Otherwise only package holders can gain or lose them (removed channels left every user in purgeStreams).
  return changed ? (await reconcileForStreams(ctx, added)).granted : 0
}

async function pullAndApply (ctx: PanelCore, name: string, source: SourceEntry, state: SourceState, report: SyncReport): Promise<string | null> {
  const inputs = syncInputs(source)
  const etag = state.etag !== null && state.etagInputs === inputs ? state.etag : null
  const pulled = await pullFeed(source.url, { etag, maxBytes: ctx.settings.sources.maxBytes, timeoutMs: ctx.settings.sources.pullTimeoutMs })
  if (pulled.status === 304) {
    report.notModified = true
    report.granted = await autoGrant(ctx, source, [], false)
    return etag
  }
  const feed = parseFeed(pulled.body, source.prefix)
  if (feed.entries.length + feed.skipped.length > ctx.settings.sources.maxChannels) {
    throw new SyncFailure(`feed has ${feed.entries.length + feed.skipped.length} entries, more than SOURCES_MAX_CHANNELS (${ctx.settings.sources.maxChannels})`)
  }
  report.skipped = feed.skipped
  const excluded = new Set(source.exclude.map((e) => e.id))
  report.dropped = feed.dropped.filter((d) => !excluded.has(d.feedId))
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
      const next = cur === null ? imported(name, source.category, e) : refreshed(cur, source.category, e)
      const refused = refusal(next)
      if (refused !== null) {
        report.skipped.push({ feedId: e.feedId, reason: refused })
        if (cur !== null) keep.add(e.id) // the last good record stays
        continue
      }
      keep.add(e.id)
      if (cur === null) {
        await b.put(keys.stream(e.id), next)
        newKeys[e.id] = toHex(randomBytes(32))
        report.added.push(e.id)
        continue
      }
      if (await b.put(keys.stream(e.id), next)) report.updated.push(e.id)
    }
    // Keys first: a record must never be without its key (a key without a record is purged with the id).
    if (Object.keys(newKeys).length > 0) await ctx.registries.streamKeys.update((keys) => { for (const [id, k] of Object.entries(newKeys)) keys[id] ??= k })
  })
  // Left the feed, or excluded (rules 5 and 7): a full purge, grants included.
  report.removed = ((await ownedBySource(ctx)).get(name) ?? []).map((e) => e.id).filter((id) => !keep.has(id))
  await purgeStreams(ctx, report.removed)
  report.granted = await autoGrant(ctx, source, report.added, report.added.length + report.updated.length + report.removed.length > 0)
  return pulled.etag
}

/** Records a failed sync on the source and logs it; resolves the error the caller throws. */
async function recordFailure (ctx: PanelCore, name: string, message: string): Promise<PanelError> {
  let failures = 1
  try {
    await ctx.registries.sourceState.update((m) => {
      const cur = m[name] ?? EMPTY_SOURCE_STATE
      failures = (cur.failures ?? (cur.lastError !== null ? 1 : 0)) + 1
      m[name] = { ...cur, lastError: { at: Date.now(), message }, failures }
    })
  } catch (err) {
    ctx.log.error({ event: 'source.state-write-failed', source: name, err: shownMessage(err) }, 'could not record the failed sync')
  }
  ctx.log.warn({ event: 'source.sync-failed', source: name, failures, err: message }, 'source sync failed; the last good state stays')
  return new PanelError('PANEL_SOURCE_SYNC', `source ${name}: ${message}`)
}

/**
 * Pulls, diffs and applies one source now (rules 1-9). An unchanged feed or a 304 writes
 * nothing to the catalog but still applies autoGrant. An entry the catalog would refuse is
 * skipped (or loses only its art) and reported; the rest imports. A failed sync keeps the last
 * good state, records the error and throws PANEL_SOURCE_SYNC with a message that never holds
 * the feed's full URL.
 */
export async function syncSource (ctx: PanelCore, name: string): Promise<SyncReport> {
  // One sync of a source at a time (the scheduler, an add, a manual sync): a second waits for
  // the first, then runs on what it left, so two never pull and diff the same feed at once.
  let chains = inFlight.get(ctx)
  if (chains === undefined) inFlight.set(ctx, chains = new Map())
  const run = (chains.get(name) ?? Promise.resolve()).catch(() => {}).then(() => syncOnce(ctx, name))
  chains.set(name, run)
  try {
    return await run
  } finally {
    if (chains.get(name) === run) chains.delete(name)
  }
}

/** The sync running (or queued last) per source, per panel. */
const inFlight = new WeakMap<PanelCore, Map<string, Promise<SyncReport>>>()

async function syncOnce (ctx: PanelCore, name: string): Promise<SyncReport> {
  const source = mustSource(await ctx.registries.sources.all(), name)
  const state = (await ctx.registries.sourceState.all())[name] ?? EMPTY_SOURCE_STATE
  const report: SyncReport = { added: [], updated: [], removed: [], skipped: [], dropped: [], conflicts: [], granted: 0, notModified: false }
  let etag: string | null
  try {
    etag = await pullAndApply(ctx, name, source, state, report)
  } catch (err) {
    throw await recordFailure(ctx, name, shownMessage(err))
  }
  const etagInputs = syncInputs(source)
  await ctx.registries.sourceState.update((m) => { m[name] = { etag, etagInputs, lastSync: { at: Date.now(), report }, lastError: null, failures: 0 } })
  if (!report.notModified) {
    ctx.activity.record({
      event: 'source.synced', source: name, count: report.added.length + report.updated.length + report.removed.length,
      skipped: report.skipped.length, dropped: report.dropped.length
    }, 'source synced')
  }
  return report
}

import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type Corestore from 'corestore'
import type Hyperswarm from 'hyperswarm'
import type { FeedWriter } from '@arus/feed'
import type { PanelLink } from '@arus/publisher'
import type { Activity, Logger } from '@arus/service'
import { LibraryError } from '../errors.js'
import { chooseConversion, ffmpegArgs, runConversion } from '../ingest/convert.js'
import { importRendition } from '../ingest/import.js'
import { probeInput } from '../ingest/probe.js'
import { openWriter, purgeGeneration, seed, unseed } from './feeds.js'
import {
  AddTitleInput, PatchTitleInput, type IngestProgress, type TitleRecord, type TitleState, type TitleView
} from './model.js'
import type { TitleStore } from './store.js'

/** A replaced generation keeps seeding this long, so a viewer mid-film is not cut off; then its cores go. */
export const RETIRED_GRACE_MS = 30 * 60_000
/** Lines kept per title (GET /api/titles/:id/logs answers at most these; a larger ?lines is capped). */
export const TITLE_LOG_LINES = 400

export interface LibraryComponents {
  store: Corestore
  swarm: Hyperswarm
  titles: TitleStore
  link: PanelLink | null
  log: Logger
  activity: Activity
}

export interface LibrarySettings {
  scratchDir: string
  hlsTime: number
  concurrency: number
  /** Prefix of ffmpeg/ffprobe command lines (childPrefix). */
  prefix: readonly string[]
  now?: () => number
}

/** Counts by state, for /healthz and /metrics. */
export interface TitleCounts { titles: number; queued: number; ingesting: number; ready: number; error: number }

/**
 * The titles and their ingest (spec 2 "Library title", "Library title state", "Library facts"):
 * a queue run at most `concurrency` at a time (probe → convert → import into a fresh feed
 * generation), every ready title seeded and registered as type 'vod', re-ingest into the next
 * generation (the old one seeds for {@link RETIRED_GRACE_MS}, then is purged), delete refused
 * mid-ingest.
 */
export class Library {
  private readonly seeds = new Map<string, FeedWriter>()
  private readonly retiredSeeds = new Map<string, FeedWriter>()
  private readonly queue: string[] = []
  private readonly running = new Map<string, AbortController>()
  private readonly progress = new Map<string, IngestProgress>()
  private readonly rings = new Map<string, string[]>()
  private readonly timers = new Set<NodeJS.Timeout>()
  private readonly jobs = new Set<Promise<void>>()
  private readonly jobById = new Map<string, Promise<void>>()
  private readonly now: () => number
  private closed = false

  constructor (private readonly c: LibraryComponents, private readonly s: LibrarySettings) {
    this.now = s.now ?? Date.now
  }

  /** Boot: titles with a feed seed and register again; queued and interrupted ones queue (from the beginning). */
  async start (): Promise<void> {
    await rm(this.s.scratchDir, { recursive: true, force: true })
    await mkdir(this.s.scratchDir, { recursive: true })
    for (const rec of this.c.titles.list()) {
      // A failed re-ingest leaves 'error' with the previous generation still the title's feed: it seeds too.
      if (rec.state === 'ready' || (rec.state === 'error' && rec.feedKey !== null)) await this.reopen(rec)
      else if (rec.state === 'ingesting' || rec.state === 'queued') {
        if (rec.state === 'ingesting') this.note(rec.id, 'ingest interrupted by a restart: it starts again from the beginning')
        await this.c.titles.put({ ...rec, state: 'queued' })
        this.queue.push(rec.id)
      }
    }
    for (const r of this.c.titles.retired()) await this.keepRetired(r.id, r.generation, r.feedKey, r.purgeAt)
    for (const u of this.c.titles.unregistering()) await this.sendUnavailable(u.id, u.title, u.category)
    const sweep = setInterval(() => { void this.settleUnregistered() }, 2000)
    sweep.unref()
    this.timers.add(sweep)
    this.pump()
  }

  list (): TitleView[] { return this.c.titles.list().map((r) => this.view(r)) }

  get (id: string): TitleView { return this.view(this.record(id)) }

  counts (): TitleCounts {
    const all = this.c.titles.list()
    const n = (s: TitleState) => all.filter((r) => r.state === s).length
    return { titles: all.length, queued: n('queued'), ingesting: n('ingesting'), ready: n('ready'), error: n('error') }
  }

  /** Registrations the panel has not acknowledged yet (titles and deletions). */
  pendingOps (): number {
    if (!this.c.link) return 0
    const titles = this.c.titles.list().filter((r) => r.state === 'ready' || r.feedKey !== null).filter((r) => !this.c.link!.status(r.id).registered).length
    return titles + this.c.titles.unregistering().length
  }

  async add (input: AddTitleInput): Promise<TitleView> {
    this.open()
    const a = AddTitleInput.parse(input)
    if (this.c.titles.get(a.id)) throw LibraryError.exists(a.id)
    await this.c.titles.setUnregistering(this.c.titles.unregistering().filter((u) => u.id !== a.id))
    const rec: TitleRecord = {
      id: a.id, input: a.input, title: a.title ?? a.id, description: a.description ?? '', category: a.category ?? [],
      protection: a.protection ?? null, mode: a.mode ?? 'auto', hlsTime: a.hlsTime ?? this.s.hlsTime, state: 'queued', error: null,
      generation: 0, feedKey: null, feedGeneration: null, durationSec: null, segments: 0, bytes: 0, createdAt: this.now(), readyAt: null
    }
    await this.c.titles.put(rec)
    this.c.activity.record({ event: 'title.added', title: rec.id }, 'title added and queued')
    this.enqueue(rec.id)
    return this.view(this.record(rec.id))
  }

  /** Changes ingest settings only; they apply at the next ingest. */
  async patch (id: string, input: PatchTitleInput): Promise<TitleView> {
    this.open()
    const p = PatchTitleInput.parse(input)
    const rec = this.record(id)
    const next = { ...rec, ...(p.input !== undefined ? { input: p.input } : {}), ...(p.mode !== undefined ? { mode: p.mode } : {}), ...(p.hlsTime !== undefined ? { hlsTime: p.hlsTime } : {}) }
    await this.c.titles.put(next)
    this.c.activity.record({ event: 'title.updated', title: id, fields: Object.keys(p) }, 'title ingest settings changed')
    return this.view(next)
  }

  /** Re-ingest into the next feed generation (optionally from a new input). */
  async reingest (id: string, input?: string): Promise<TitleView> {
    this.open()
    const rec = this.record(id)
    await this.finishing(id, rec)
    if (this.running.has(id) || this.queue.includes(id)) throw LibraryError.ingesting(id)
    const next: TitleRecord = { ...rec, ...(input !== undefined ? { input } : {}), state: 'queued', error: null }
    await this.c.titles.put(next)
    this.c.activity.record({ event: 'title.reingest', title: id }, 'title queued for re-ingest')
    this.enqueue(id)
    return this.view(next)
  }

  /** Deletes a title that is not being ingested: stops seeding, purges its cores and key, registers 'unavailable'. */
  async remove (id: string): Promise<{ deleted: string }> {
    this.open()
    const rec = this.record(id)
    await this.finishing(id, rec)
    if (this.running.has(id)) throw LibraryError.ingesting(id)
    const queued = this.queue.indexOf(id)
    if (queued >= 0) this.queue.splice(queued, 1)
    const key = await this.c.titles.key(id)
    const current = this.seeds.get(id)
    this.seeds.delete(id)
    if (current) await unseed(this.c.swarm, current)
    if (rec.feedKey !== null && rec.feedGeneration !== null) await purgeGeneration(this.c.store, id, rec.feedGeneration, key, rec.feedKey)
    for (const r of this.c.titles.retired().filter((x) => x.id === id)) await this.purgeRetired(r.id, r.generation, r.feedKey)
    await this.c.titles.remove(id)
    this.progress.delete(id)
    this.rings.delete(id)
    if (rec.feedKey !== null && this.c.link) {
      // The record stays in the panel as 'unavailable' until an admin removes it (spec 1 "States").
      await this.c.titles.setUnregistering([...this.c.titles.unregistering(), { id, title: rec.title, category: rec.category }])
      await this.sendUnavailable(id, rec.title, rec.category)
    } else {
      await this.c.titles.dropKey(id)
      this.c.link?.forget(id)
    }
    this.c.activity.record({ event: 'title.deleted', title: id }, 'title deleted')
    return { deleted: id }
  }

  logs (id: string, lines: number): { lines: string[]; state: TitleState; ingest: IngestProgress | null } {
    const rec = this.record(id)
    return { lines: (this.rings.get(id) ?? []).slice(-lines), state: rec.state, ingest: this.ingestOf(rec) }
  }

  async close (): Promise<void> {
    this.closed = true
    for (const t of this.timers) clearTimeout(t)
    for (const ac of this.running.values()) ac.abort()
    await Promise.allSettled([...this.jobs])
    for (const w of [...this.seeds.values(), ...this.retiredSeeds.values()]) await unseed(this.c.swarm, w)
    this.seeds.clear()
    this.retiredSeeds.clear()
  }

  private record (id: string): TitleRecord {
    const rec = this.c.titles.get(id)
    if (!rec) throw LibraryError.notFound(id)
    return rec
  }

  private open (): void { if (this.closed) throw LibraryError.closed() }

  private view (rec: TitleRecord): TitleView {
    const writer = this.seeds.get(rec.id)
    const status = this.c.link?.status(rec.id)
    return {
      ...rec,
      ingest: this.ingestOf(rec),
      peers: writer ? writer.drive.core.peers.length : 0,
      registered: status?.registered ?? false,
      registerError: this.c.link ? status?.registerError ?? null : 'no panel configured (PANEL_PUBKEY, PUBLISHER_KEY)'
    }
  }

  /** Progress only while ingesting: the record turns ready or error a moment before the job clears its progress. */
  private ingestOf (rec: TitleRecord): IngestProgress | null {
    return rec.state === 'ingesting' ? this.progress.get(rec.id) ?? null : null
  }

  private note (id: string, line: string): void {
    const ring = this.rings.get(id) ?? []
    ring.push(`${new Date(this.now()).toISOString()} ${line}`)
    if (ring.length > TITLE_LOG_LINES) ring.splice(0, ring.length - TITLE_LOG_LINES)
    this.rings.set(id, ring)
  }

  /**
   * An ingest writes its outcome (ready or error) a moment before its job ends; a title that
   * already reads ready or error waits for that moment instead of being refused as ingesting.
   */
  private async finishing (id: string, rec: TitleRecord): Promise<void> {
    const job = this.jobById.get(id)
    if (job !== undefined && (rec.state === 'ready' || rec.state === 'error')) await job
  }

  private enqueue (id: string): void {
    if (!this.queue.includes(id)) this.queue.push(id)
    this.pump()
  }

  private pump (): void {
    while (!this.closed && this.running.size < this.s.concurrency && this.queue.length > 0) {
      const id = this.queue.shift()!
      const ac = new AbortController()
      this.running.set(id, ac)
      const job = this.ingest(id, ac.signal)
        .catch((err: unknown) => this.c.log.error({ event: 'title.ingest-crashed', title: id, err: (err as Error).message }, 'ingest failed unexpectedly'))
        .finally(() => { this.running.delete(id); this.progress.delete(id); this.jobs.delete(job); this.jobById.delete(id); this.pump() })
      this.jobs.add(job)
      this.jobById.set(id, job)
    }
  }

  /** One ingest: probe → convert → import into generation+1 → seed → retire the old → register. */
  private async ingest (id: string, signal: AbortSignal): Promise<void> {
    let rec = this.record(id)
    const generation = rec.generation + 1
    rec = { ...rec, state: 'ingesting', error: null, generation }
    await this.c.titles.put(rec)
    const scratch = join(this.s.scratchDir, `${id}-${generation}`)
    const key = await this.c.titles.key(id)
    let writer: FeedWriter | null = null
    const phase = (p: IngestProgress['phase'], fraction: number) => {
      if (this.progress.get(id)?.phase !== p) this.note(id, `phase: ${p}`)
      this.progress.set(id, { phase: p, pct: Math.round(fraction * 1000) / 10 })
    }
    const fail = async (error: string) => {
      this.note(id, `error: ${error}`)
      if (writer) { await writer.close().catch(() => {}); await purgeGeneration(this.c.store, id, generation, key, null).catch(() => {}) }
      await rm(scratch, { recursive: true, force: true })
      if (!this.c.titles.get(id)) return
      await this.c.titles.put({ ...this.record(id), state: signal.aborted && this.closed ? 'queued' : 'error', error: signal.aborted && this.closed ? null : error })
      if (!this.closed) this.c.log.warn({ event: 'title.error', title: id, reason: error }, 'title ingest failed')
    }
    try {
      this.note(id, `ingest of generation ${generation} from ${rec.input}`)
      phase('probe', 0)
      const probed = await probeInput(rec.input, { signal, prefix: this.s.prefix })
      if (!probed.ok) { await fail(probed.error); return }
      const info = probed.info
      this.note(id, `probe: ${info.videoCodec}/${info.audioCodec ?? 'no audio'}, ${info.durationSec.toFixed(1)} s`)
      let conversion = chooseConversion(rec.mode, info)
      await rm(scratch, { recursive: true, force: true })
      await mkdir(scratch, { recursive: true })
      const convert = () => runConversion(ffmpegArgs(rec.input, conversion, rec.hlsTime, scratch), {
        durationSec: info.durationSec, prefix: this.s.prefix, signal, onProgress: (f) => phase('convert', f), onLine: (l) => this.note(id, `ffmpeg: ${l}`)
      })
      phase('convert', 0)
      this.note(id, `convert: ${conversion}`)
      let converted = await convert()
      if (!converted.ok && conversion === 'copy' && rec.mode === 'auto' && !signal.aborted) {
        this.note(id, 'copy failed; transcoding instead')
        conversion = 'transcode'
        await rm(scratch, { recursive: true, force: true })
        await mkdir(scratch, { recursive: true })
        converted = await convert()
      }
      if (!converted.ok) { await fail(converted.error); return }
      phase('import', 0)
      writer = openWriter(this.c.store, id, generation, key, null)
      await writer.ready()
      const imported = await importRendition(scratch, writer, { signal, onProgress: (f) => phase('import', f) })
      await rm(scratch, { recursive: true, force: true })
      await seed(this.c.swarm, writer)
      const feedKey = Buffer.from(writer.feedKey).toString('hex')
      const previous = this.record(id)
      if (previous.feedKey !== null && previous.feedGeneration !== null) await this.retire(id, previous.feedGeneration, previous.feedKey)
      this.seeds.set(id, writer)
      const ready: TitleRecord = {
        ...previous, state: 'ready', error: null, feedKey, feedGeneration: generation, durationSec: Math.round(info.durationSec * 1000) / 1000,
        segments: imported.segments, bytes: imported.bytes, readyAt: this.now()
      }
      await this.c.titles.put(ready)
      this.note(id, `ready: ${imported.segments} segments, ${imported.bytes} bytes, feedKey ${feedKey}`)
      this.c.activity.record({ event: 'title.ready', title: id, count: imported.segments }, 'title ingested')
      this.register(ready, key)
    } catch (err) {
      await fail(signal.aborted ? 'ingest stopped' : (err as Error).message)
    }
  }

  private register (rec: TitleRecord, key: Uint8Array): void {
    this.c.link?.set(rec.id, {
      type: 'vod', feedKey: rec.feedKey, durationSec: rec.durationSec, status: 'available', title: rec.title,
      ...(rec.description ? { description: rec.description } : {}), category: rec.category
    }, key)
  }

  private async sendUnavailable (id: string, title: string, category: string[]): Promise<void> {
    this.c.link?.set(id, { type: 'vod', feedKey: null, durationSec: null, status: 'unavailable', title, category }, await this.c.titles.key(id))
  }

  /** Deletions whose 'unavailable' the panel took: forget them and drop their keys. */
  private async settleUnregistered (): Promise<void> {
    const link = this.c.link
    if (!link || this.closed) return
    const pending = this.c.titles.unregistering()
    const done = pending.filter((u) => link.status(u.id).registered)
    if (done.length === 0) return
    for (const u of done) { link.forget(u.id); await this.c.titles.dropKey(u.id) }
    await this.c.titles.setUnregistering(pending.filter((u) => !done.includes(u)))
  }

  /** A ready title after a restart: reopen its generation, seed and register; re-queue it when its feed is gone. */
  private async reopen (rec: TitleRecord): Promise<void> {
    const key = await this.c.titles.key(rec.id)
    const writer = openWriter(this.c.store, rec.id, rec.feedGeneration ?? rec.generation, key, rec.feedKey)
    await writer.ready()
    if (writer.stats().segments === 0) {
      await writer.close()
      this.note(rec.id, 'the feed is gone from the store: ingesting again')
      await this.c.titles.put({ ...rec, state: 'queued', feedKey: null, feedGeneration: null })
      this.queue.push(rec.id)
      return
    }
    await seed(this.c.swarm, writer)
    this.seeds.set(rec.id, writer)
    this.register(rec, key)
  }

  private async retire (id: string, generation: number, feedKey: string): Promise<void> {
    const old = this.seeds.get(id)
    this.seeds.delete(id)
    const purgeAt = this.now() + RETIRED_GRACE_MS
    await this.c.titles.setRetired([...this.c.titles.retired(), { id, generation, feedKey, purgeAt }])
    if (old) this.retiredSeeds.set(feedKey, old)
    this.schedulePurge(id, generation, feedKey, purgeAt)
  }

  private async keepRetired (id: string, generation: number, feedKey: string, purgeAt: number): Promise<void> {
    if (purgeAt <= this.now() || !this.c.titles.get(id)) { await this.purgeRetired(id, generation, feedKey); return }
    const writer = openWriter(this.c.store, id, generation, await this.c.titles.key(id), feedKey)
    await seed(this.c.swarm, writer)
    this.retiredSeeds.set(feedKey, writer)
    this.schedulePurge(id, generation, feedKey, purgeAt)
  }

  private schedulePurge (id: string, generation: number, feedKey: string, purgeAt: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      void this.purgeRetired(id, generation, feedKey).catch((err: unknown) => this.c.log.warn({ event: 'feed.purge-failed', title: id, err: (err as Error).message }, 'purge of a retired generation failed'))
    }, Math.max(0, purgeAt - this.now()))
    timer.unref()
    this.timers.add(timer)
  }

  private async purgeRetired (id: string, generation: number, feedKey: string): Promise<void> {
    const writer = this.retiredSeeds.get(feedKey)
    this.retiredSeeds.delete(feedKey)
    if (writer) await unseed(this.c.swarm, writer)
    await purgeGeneration(this.c.store, id, generation, await this.c.titles.key(id), feedKey)
    await this.c.titles.setRetired(this.c.titles.retired().filter((r) => r.feedKey !== feedKey))
    this.c.log.info({ event: 'feed.purged', title: id, generation }, 'retired title generation purged')
  }
}

import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createLogger } from '@arus/service'
import { createLogSink, tmpDir, type LogSink, type TestContextLike } from '@arus/testkit'
import { createAnalytics, type Analytics, type AnalyticsInit, type CatalogCounts } from '../src/analytics/index.js'

/** A settable clock starting at `start` (ISO, UTC). */
export interface Clock { now: () => number; set(iso: string): void; advance(ms: number): void }

export function createClock (start: string): Clock {
  let t = Date.parse(start)
  return { now: () => t, set (iso) { t = Date.parse(iso) }, advance (ms) { t += ms } }
}

/** Analytics over a temp data dir with an injected clock, no timer, and a captured log. */
export interface AnalyticsFixture {
  dataDir: string
  dir: string
  saltFile: string
  clock: Clock
  /** What `onlineApps` answers next. */
  online: { value: number }
  /** What `catalogCounts` answers next, and how often it was asked. */
  catalog: { value: CatalogCounts; calls: number }
  log: LogSink
  /** A new instance on the same directories and clock (a restart), ready. */
  open(over?: Partial<AnalyticsInit>): Promise<Analytics>
}

export async function analyticsFixture (t: TestContextLike, start: string, over: Partial<AnalyticsInit> = {}): Promise<AnalyticsFixture & { analytics: Analytics }> {
  const dataDir = tmpDir(t, 'panel-analytics-')
  const dir = join(dataDir, 'analytics')
  const saltFile = join(dataDir, 'private', 'analytics-salt.json')
  const clock = createClock(start)
  const online = { value: 0 }
  const catalog = { value: { live: 0, redirect: 0, vod: 0 }, calls: 0 }
  const log = createLogSink()
  const logger = createLogger({ name: 'analytics-test', level: 'info', format: 'json', destination: log.stream })
  const open = async (more: Partial<AnalyticsInit> = {}): Promise<Analytics> => {
    const a = createAnalytics({
      log: logger,
      now: clock.now,
      onlineApps: () => online.value,
      catalogCounts: async () => { catalog.calls++; return { ...catalog.value } }
    }, { dir, saltFile, retentionDays: 30, intervalMs: 0, ...over, ...more })
    t.onTestFinished(() => a.close())
    await a.ready()
    return a
  }
  return { dataDir, dir, saltFile, clock, online, catalog, log, open, analytics: await open() }
}

/** Every file under `root` (recursive) with its content. */
export async function filesUnder (root: string): Promise<Array<{ path: string; text: string }>> {
  const out: Array<{ path: string; text: string }> = []
  const entries = await readdir(root, { withFileTypes: true, recursive: true }).catch(() => [])
  for (const e of entries) {
    if (!e.isFile()) continue
    const path = join(e.parentPath, e.name)
    out.push({ path, text: await readFile(path, 'latin1') })
  }
  return out
}

/** Files (by path) whose name or content contains one of `needles`, case-insensitively. */
export function findNeedles (files: Array<{ path: string; text: string }>, needles: string[]): string[] {
  const hits: string[] = []
  for (const f of files) {
    const hay = `${f.path}\n${f.text}`.toLowerCase()
    for (const n of needles) if (hay.includes(n.toLowerCase())) hits.push(`${f.path}: ${n}`)
  }
  return hits
}

/** Sums of one day's hours. */
export function dayTotals (day: { hours: Record<string, { logins: { ok: number; failed: number }; sessions: number }> }): { ok: number; failed: number; sessions: number } {
  const sum = { ok: 0, failed: 0, sessions: 0 }
  for (const h of Object.values(day.hours)) { sum.ok += h.logins.ok; sum.failed += h.logins.failed; sum.sessions += h.sessions }
  return sum
}

import { randomBytes } from 'node:crypto'
import { rename, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import { readJsonFile, writeJsonAtomic, type Logger } from '@arus/service'
import { MAX_STORED_REPORTS, REPORTS_FILE_VERSION } from './constants.js'
import { ReportsError } from './errors.js'
import { withProcessLock } from './lock.js'
import { Report, type ReportStatus } from './schemas.js'

/** reports.json: the stored reports, outside the replicated catalog (spec 1 "Storm behavior"). */
export const ReportsFile = z.strictObject({ v: z.literal(REPORTS_FILE_VERSION), reports: z.array(Report) })

export const reportsFilePath = (dir: string): string => join(dir, 'reports.json')

const RANK: Record<ReportStatus, number> = { new: 0, ack: 1, resolved: 2 }

/** A status change, as the panel and the CLI apply it; never moves a report backwards. */
export type StatusChange = { to: 'ack' } | { to: 'resolved'; note: string | null }

/** Applies `change` at `now`; the same record when it would not move forward. */
export function changeStatus (r: Report, change: StatusChange, now: number): Report {
  if (RANK[change.to] <= RANK[r.status]) return r
  return change.to === 'ack'
    ? { ...r, status: 'ack', ackAt: now }
    : { ...r, status: 'resolved', resolvedAt: now, note: change.note }
}

export function newReportId (now: number): string {
  return `r-${now.toString(36)}-${randomBytes(4).toString('hex')}`
}

/** Reads reports.json; a missing file is empty. */
export async function readReportsFile (dir: string): Promise<Report[]> {
  const file = reportsFilePath(dir)
  try {
    return (await readJsonFile(file, ReportsFile, { missing: 'null' }))?.reports ?? []
  } catch (err) {
    if ((err as { code?: unknown }).code === 'SERVICE_CORRUPT_FILE') throw ReportsError.corrupt('reports.json')
    throw err
  }
}

/**
 * Moves one report forward under the file lock: the way report commands change a report beside
 * a running panel. The panel merges the change at its next write or read (the further status
 * wins), so neither side loses the other's work.
 */
export async function changeReportInFile (dir: string, id: string, change: StatusChange, now: number): Promise<Report> {
  const file = reportsFilePath(dir)
  return withProcessLock(file, async () => {
    const reports = await readReportsFile(dir)
    const i = reports.findIndex((r) => r.id === id)
    if (i < 0) throw ReportsError.notFound('report', id)
    const next = changeStatus(reports[i]!, change, now)
    if (next !== reports[i]) {
      reports[i] = next
      await writeJsonAtomic(file, { v: REPORTS_FILE_VERSION, reports }, { mode: 0o600 })
    }
    return next
  })
}

interface FileStamp { ino: number; mtimeMs: number; size: number }

/**
 * The panel's reports: held in memory, written with group commit (every change made before a
 * write starts is in it; callers await the write that holds their change), each write under
 * the file lock after merging what another process changed since.
 */
export class ReportStore {
  readonly reports = new Map<string, Report>()
  private stamp: FileStamp | null = null
  private pending: Promise<void> | null = null
  private current: Promise<void> | null = null

  constructor (private readonly dir: string, private readonly log: Logger) {}

  get file (): string { return reportsFilePath(this.dir) }

  /** Loads reports.json; a corrupt file is kept aside (reports.json.corrupt-<ms>) and the store starts empty. */
  async load (): Promise<void> {
    let list: Report[]
    try {
      list = await readReportsFile(this.dir)
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'REPORTS_CORRUPT') throw err
      const aside = `${this.file}.corrupt-${Date.now()}`
      await rename(this.file, aside)
      this.log.error({ event: 'reports.file.corrupt', aside }, 'reports.json is corrupt: kept aside, starting with no reports')
      list = []
    }
    for (const r of list) this.reports.set(r.id, r)
    this.stamp = await stampOf(this.file)
  }

  /** Takes in status changes another process wrote since this store last read or wrote the file. */
  async refresh (): Promise<void> {
    const now = await stampOf(this.file)
    if (sameStamp(now, this.stamp)) return
    this.mergeStatuses(await readReportsFile(this.dir))
    this.stamp = now
  }

  /** Writes every change made so far; resolves once they are on disk. */
  flush (): Promise<void> {
    if (this.pending) return this.pending
    const previous = this.current ?? Promise.resolve()
    const write: Promise<void> = previous.catch(() => {}).then(async () => {
      this.pending = null // changes from here on go into the next write
      this.current = write
      try {
        await withProcessLock(this.file, async () => {
          const seen = await stampOf(this.file)
          if (!sameStamp(seen, this.stamp)) this.mergeStatuses(await readReportsFile(this.dir))
          await writeJsonAtomic(this.file, { v: REPORTS_FILE_VERSION, reports: [...this.reports.values()] }, { mode: 0o600 })
          this.stamp = await stampOf(this.file)
        })
      } finally {
        if (this.current === write) this.current = null
      }
    })
    this.pending = write
    return write
  }

  /** Drops reports last seen before `cutoff`, then evicts down to the cap (oldest resolved first). */
  prune (cutoff: number): number {
    let dropped = 0
    for (const [id, r] of this.reports) if (r.lastAt < cutoff) { this.reports.delete(id); dropped++ }
    return dropped + this.evict()
  }

  /** Keeps at most {@link MAX_STORED_REPORTS}: resolved reports go first, oldest first; then the oldest. */
  evict (): number {
    let over = this.reports.size - MAX_STORED_REPORTS
    if (over <= 0) return 0
    const evicted = over
    const byAge = [...this.reports.values()].sort((a, b) => a.at - b.at)
    for (const r of byAge) if (over > 0 && r.status === 'resolved') { this.reports.delete(r.id); over-- }
    for (const r of byAge) if (over > 0 && this.reports.has(r.id)) { this.reports.delete(r.id); over-- }
    return evicted
  }

  /** Only the panel creates and removes reports, so only statuses are taken from the file. */
  private mergeStatuses (onDisk: Report[]): void {
    for (const d of onDisk) {
      const mine = this.reports.get(d.id)
      if (mine && RANK[d.status] > RANK[mine.status]) {
        this.reports.set(d.id, { ...mine, status: d.status, ackAt: d.ackAt, resolvedAt: d.resolvedAt, note: d.note })
      }
    }
  }
}

async function stampOf (file: string): Promise<FileStamp | null> {
  try {
    const s = await stat(file)
    return { ino: s.ino, mtimeMs: s.mtimeMs, size: s.size }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw err
  }
}

function sameStamp (a: FileStamp | null, b: FileStamp | null): boolean {
  return a === b || (a !== null && b !== null && a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.size === b.size)
}

import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import { readJsonFile, writeJsonAtomic } from '@arus/service'
import { ANALYTICS_FILE_VERSION } from './constants.js'
import { HourRecord } from './rollup.js'
import { SketchState, ViewerSketch } from './sketch.js'

/**
 * Day files: DATA_DIR/analytics/<YYYY-MM-DD>.json, one per UTC day, written atomically. An
 * open day (today) also holds its viewer sketch of salted hashes; a closed day holds only
 * its counts.
 */

const DATE = /^\d{4}-\d{2}-\d{2}$/

export const DayFile = z.object({
  v: z.literal(ANALYTICS_FILE_VERSION),
  date: z.string().regex(DATE),
  /** UTC hour (0-23) → its counts; hours without data are absent. */
  hours: z.record(z.string().regex(/^(1?\d|2[0-3])$/), HourRecord),
  uniqueViewers: z.number().int().min(0),
  /** Only while the day is open. */
  viewers: SketchState.optional()
})
export type DayFile = z.infer<typeof DayFile>

export function dayPath (dir: string, date: string): string {
  return join(dir, `${date}.json`)
}

/** Dates of the day files in `dir`, oldest first (none when the directory does not exist). */
export async function listDays (dir: string): Promise<string[]> {
  const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[]
    throw err
  })
  return names.filter((n) => n.endsWith('.json') && DATE.test(n.slice(0, -5))).map((n) => n.slice(0, -5)).sort()
}

export async function readDay (dir: string, date: string): Promise<DayFile | null> {
  return readJsonFile(dayPath(dir, date), DayFile, { missing: 'null' })
}

export async function writeDay (dir: string, day: DayFile): Promise<void> {
  await writeJsonAtomic(dayPath(dir, day.date), day)
}

export async function removeDay (dir: string, date: string): Promise<void> {
  await rm(dayPath(dir, date), { force: true })
}

/** The day closed: its sketch reduced to the count and dropped. */
export function closedDay (day: DayFile, cap: number): DayFile {
  const { viewers, ...rest } = day
  return { ...rest, uniqueViewers: viewers ? new ViewerSketch(cap, viewers).count() : day.uniqueViewers }
}

/**
 * Closes every day file but `today` that still holds a sketch (the panel was down at its
 * rollover). Unreadable files are left alone and reported through `onError`.
 */
export async function closeStaleDays (dir: string, today: string | null, cap: number, onError: (date: string, err: unknown) => void): Promise<void> {
  for (const date of await listDays(dir)) {
    if (date === today) continue
    try {
      const day = await readDay(dir, date)
      if (day?.viewers !== undefined) await writeDay(dir, closedDay(day, cap))
    } catch (err) {
      onError(date, err)
    }
  }
}

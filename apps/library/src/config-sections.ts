import { z } from 'zod'
import type { ConfigSection, SectionPlan } from '@arus/config-snapshots'
import { HlsTime, IngestMode, TitleId, type TitleRecord } from './titles/model.js'
import type { TitleStore } from './titles/store.js'

/** A title's ingest settings and seed metadata: what a snapshot or template keeps (no key, no feed). */
export const TitleSettings = z.object({
  input: z.string(),
  title: z.string(),
  description: z.string(),
  category: z.array(z.string()),
  protection: z.string().nullable(),
  mode: IngestMode,
  hlsTime: HlsTime
})
export type TitleSettings = z.infer<typeof TitleSettings>
const TitlesSection = z.record(TitleId, TitleSettings)

/** How a restore writes titles: through the running library, or (CLI, daemon stopped) the files. */
export interface TitleWriter {
  add(id: string, s: TitleSettings): Promise<void>
  patch(id: string, s: Pick<TitleSettings, 'input' | 'mode' | 'hlsTime'>): Promise<void>
  /** Queues an ingest again (a title whose feed is gone). */
  requeue(id: string): Promise<void>
  /** false: refused (mid-ingest). */
  remove(id: string): Promise<boolean>
}

const settingsOf = (r: TitleRecord): TitleSettings => ({ input: r.input, title: r.title, description: r.description, category: r.category, protection: r.protection, mode: r.mode, hlsTime: r.hlsTime })
const sameIngest = (a: TitleSettings, b: TitleSettings) => a.input === b.input && a.mode === b.mode && a.hlsTime === b.hlsTime

/**
 * The library's one config section (spec 1 "Config snapshots": a library restore puts back
 * ingest settings only): titles with their input, mode, hlsTime and seed metadata. A restore
 * adds missing titles (queued), puts back changed ingest settings, and re-queues titles whose
 * feed is gone; feeds, keys and states are never in it. Templates leave out input paths and
 * URLs (they may carry credentials or name files of another box).
 */
export function libraryConfigSections (titles: TitleStore, writer: TitleWriter): ConfigSection[] {
  const section: ConfigSection<z.infer<typeof TitlesSection>> = {
    name: 'titles',
    schema: TitlesSection,
    describe: 'titles: input, mode, hlsTime and seed metadata (a restore puts back ingest settings only and re-queues titles whose feed is gone)',
    async export () { return Object.fromEntries(titles.list().map((r) => [r.id, settingsOf(r)])) },
    toTemplate (data) {
      const omitted = Object.keys(data).map((id) => ({ path: `titles.${id}.input`, reason: 'an input path or URL belongs to one box and may carry credentials' }))
      return { data: Object.fromEntries(Object.entries(data).map(([id, s]) => [id, { ...s, input: '' }])), omitted }
    },
    async apply (data, opts): Promise<SectionPlan> {
      const plan: SectionPlan = { added: [], changed: [], leftAlone: [], removed: [], skipped: [], warnings: [] }
      for (const [id, s] of Object.entries(data)) {
        const live = titles.get(id)
        if (s.input === '') {
          // A template's titles carry no input: there is nothing to ingest until an operator gives one.
          plan.skipped.push({ id, reason: 'the template holds no input: add the title with its input (POST /api/titles)' })
          continue
        }
        if (!live) {
          plan.added.push(id)
          if (!opts.dryRun) await writer.add(id, s)
          continue
        }
        const gone = live.feedKey === null && live.state === 'error'
        if (!sameIngest(settingsOf(live), s) || gone) {
          plan.changed.push(id)
          if (opts.dryRun) continue
          if (!sameIngest(settingsOf(live), s)) await writer.patch(id, { input: s.input, mode: s.mode, hlsTime: s.hlsTime })
          if (gone) await writer.requeue(id)
        } else plan.leftAlone.push(id)
      }
      if (opts.removeExtra) {
        for (const live of titles.list()) {
          if (Object.hasOwn(data, live.id)) continue
          if (opts.dryRun) { plan.removed.push(live.id); continue }
          if (await writer.remove(live.id)) plan.removed.push(live.id)
          else plan.warnings.push(`${live.id}: being ingested; not removed`)
        }
      }
      return plan
    }
  }
  return [section as ConfigSection]
}

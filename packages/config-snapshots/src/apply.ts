import type { ConfigSection, SectionPlan } from './index.js'
import { ConfigError, fieldIssues, type FieldIssue } from './errors.js'
import { SectionPlanSchema } from './schemas.js'

/**
 * The one path of plan, restore and template import: every section of the daemon, in its
 * declared order, gets its payload through apply (dryRun for plans). A section that
 * refuses restores is listed as skipped without being called.
 */

export interface ApplyOptions { dryRun: boolean; removeExtra: boolean; source: 'snapshot' | 'template' }

/** Checks `data` against the section's schema; `onFail` builds the error from the field issues (under `prefix`). */
export function parseSection<T> (section: ConfigSection<T>, data: unknown, onFail: (issues: FieldIssue[]) => Error, prefix: string[] = []): T {
  const r = section.schema.safeParse(data)
  if (!r.success) throw onFail(fieldIssues(r.error.issues, prefix))
  return r.data
}

export async function applySections (
  sections: readonly ConfigSection[],
  payloads: ReadonlyMap<string, unknown>,
  opts: ApplyOptions,
  what: string
): Promise<{ sections: Record<string, SectionPlan>; warnings: string[] }> {
  const plans: Record<string, SectionPlan> = {}
  const warnings: string[] = []
  for (const section of sections) {
    if (!payloads.has(section.name)) {
      if (!(opts.source === 'template' && section.snapshotOnly === true)) warnings.push(`section ${section.name} is not in this ${what}: left as it is`)
      continue
    }
    if (section.restoreSupported === false) {
      plans[section.name] = { ...emptyPlan(), skipped: [{ id: '*', reason: `restoring the ${section.name} section is not supported` }] }
      continue
    }
    const result = await section.apply(payloads.get(section.name), { ...opts })
    const checked = SectionPlanSchema.safeParse(result)
    if (!checked.success) throw ConfigError.sectionInvalid(section.name, 'the plan its apply returned', fieldIssues(checked.error.issues))
    plans[section.name] = checked.data
  }
  return { sections: plans, warnings }
}

export const emptyPlan = (): SectionPlan => ({ added: [], changed: [], leftAlone: [], removed: [], skipped: [], warnings: [] })

import type { ConfigSection } from './index.js'
import { parseSection } from './apply.js'
import { SNAPSHOT_ONLY_REASON, TEMPLATE_KIND, TEMPLATE_VERSION } from './constants.js'
import { ConfigError, fieldIssues } from './errors.js'
import { TemplateEnvelope } from './schemas.js'

/**
 * Secret-free templates: each section's export stripped by its toTemplate, snapshot-only
 * sections left out, and every removal named in `omitted`. A template read back is
 * checked envelope first, then service, then each section's payload; errors name fields,
 * never values.
 */

export async function buildTemplate (service: string, sections: readonly ConfigSection[], now: number): Promise<TemplateEnvelope> {
  const omitted: TemplateEnvelope['omitted'] = []
  const data: Record<string, unknown> = {}
  for (const section of sections) {
    if (section.snapshotOnly === true || section.toTemplate === undefined) {
      omitted.push({ section: section.name, path: '*', reason: SNAPSHOT_ONLY_REASON })
      continue
    }
    const full = parseSection(section, await section.export(), (issues) => ConfigError.sectionInvalid(section.name, 'its export', issues))
    const stripped = section.toTemplate(full)
    data[section.name] = parseSection(section, stripped.data, (issues) => ConfigError.sectionInvalid(section.name, 'its template data', issues))
    for (const o of stripped.omitted) omitted.push({ section: section.name, path: o.path, reason: o.reason })
  }
  return {
    kind: TEMPLATE_KIND,
    version: TEMPLATE_VERSION,
    service,
    createdAt: new Date(now).toISOString(),
    contains: 'no-secrets',
    omitted,
    sections: data
  }
}

/** A checked template: the payloads of the sections this daemon imports, and remarks. */
export interface ParsedTemplate { payloads: Map<string, unknown>; warnings: string[] }

export function parseTemplate (service: string, sections: readonly ConfigSection[], input: unknown): ParsedTemplate {
  const envelope = TemplateEnvelope.safeParse(input)
  if (!envelope.success) throw ConfigError.invalidTemplate('not an arus-config-template envelope', fieldIssues(envelope.error.issues))
  if (envelope.data.service !== service) throw ConfigError.wrongService('template', envelope.data.service, service)
  const byName = new Map(sections.map((s) => [s.name, s]))
  const payloads = new Map<string, unknown>()
  const warnings: string[] = []
  for (const [name, payload] of Object.entries(envelope.data.sections)) {
    const section = byName.get(name)
    // Names come from the template: only well-formed ones are echoed in warnings.
    const shown = /^[a-z][a-z0-9-]{0,63}$/.test(name) ? name : '(malformed name)'
    if (section === undefined) warnings.push(`unknown section ${shown} ignored`)
    else if (section.snapshotOnly === true) warnings.push(`section ${shown} is snapshot-only and never imported from a template: ignored`)
    else payloads.set(name, parseSection(section, payload, (issues) => ConfigError.invalidTemplate('a section fails its schema', issues), ['sections', name]))
  }
  return { payloads, warnings }
}

import { z } from 'zod'
import {
  NOTE_MAX, REASON_MAX, SECTION_NAME_PATTERN, SNAPSHOT_FILE_KIND, SNAPSHOT_FILE_VERSION, TEMPLATE_KIND, TEMPLATE_VERSION
} from './constants.js'

/**
 * One zod schema per operation input and reply: the operations validate with them, the
 * routes declare them (validation, OpenAPI), and the CLI parses its options through the
 * operations. Spec: 1-panel.md "Config snapshots, templates, backups".
 */

// eslint-disable-next-line no-control-regex
const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/

export const ServiceName = z.string().regex(/^[a-z][a-z0-9-]{0,63}$/, 'lowercase letters, digits and -').describe('Service name (panel, broadcaster, library, reseller)')
export const SectionName = z.string().regex(SECTION_NAME_PATTERN, 'lowercase letters, digits and -').describe('Section name')
/** A snapshot id as accepted on the wire; the operations check its form (a malformed id is a 404, not a 400). */
export const SnapshotIdParam = z.string().describe('Snapshot id, e.g. 20261124T101500123Z-3fa9c2')
export const SnapshotNote = z.string().min(1).max(NOTE_MAX).regex(NO_CONTROL, 'no control characters').describe('Operator note')
export const SnapshotReason = z.string().min(1).max(REASON_MAX).regex(NO_CONTROL, 'no control characters')
  .describe("Why it was taken: 'manual', 'before-restore', 'before-import' or 'before-<destructive change>'")

/** Options of take() (config snapshot); HTTP accepts the note only. */
export const TakeSnapshotInput = z.strictObject({ note: SnapshotNote.optional(), reason: SnapshotReason.optional() })
/** POST /api/config/snapshots. */
export const TakeSnapshotBody = TakeSnapshotInput.pick({ note: true })

export const SectionSize = z.object({
  name: z.string(),
  /** Bytes of the section's JSON. */
  bytes: z.number().int().min(0),
  /** Entries of the section when its payload is an array or an object. */
  items: z.number().int().min(0).optional()
})

/** What is shown of a snapshot: never its contents. */
export const SnapshotMeta = z.object({
  id: z.string(),
  service: z.string(),
  createdAt: z.string(),
  note: z.string().optional(),
  reason: z.string(),
  sections: z.array(SectionSize)
})
export type SnapshotMeta = z.infer<typeof SnapshotMeta>

export const SnapshotList = z.object({ snapshots: z.array(SnapshotMeta) })
export type SnapshotList = z.infer<typeof SnapshotList>
export const SnapshotIdParams = z.strictObject({ id: SnapshotIdParam })

/** What a section's apply reports; ids are the section's own (stream ids, user names, ...). */
export const SectionPlanSchema = z.object({
  added: z.array(z.string()),
  changed: z.array(z.string()),
  leftAlone: z.array(z.string()),
  removed: z.array(z.string()),
  skipped: z.array(z.object({ id: z.string(), reason: z.string() })),
  warnings: z.array(z.string())
})

export const PlanInput = z.strictObject({ removeExtra: z.boolean().optional() })
export const RestoreInput = z.strictObject({
  /** Must be true; optional here so a missing confirm is CONFIG_CONFIRM_REQUIRED, not a validation error. */
  confirm: z.boolean().optional(),
  removeExtra: z.boolean().optional()
})

export const PlanReply = z.object({
  id: z.string(),
  sections: z.record(z.string(), SectionPlanSchema),
  /** Sections of the snapshot this daemon does not know, and other whole-snapshot remarks. */
  warnings: z.array(z.string())
})
export type PlanReply = z.infer<typeof PlanReply>
export const RestoreReply = PlanReply.extend({ preRestoreSnapshot: z.string() })
export type RestoreReply = z.infer<typeof RestoreReply>

export const ConfigInfo = z.object({
  service: z.string(),
  sections: z.array(z.object({ name: z.string(), snapshotOnly: z.boolean(), restoreSupported: z.boolean() })),
  restoreSupported: z.boolean(),
  snapshotDir: z.string(),
  keep: z.number().int(),
  notes: z.array(z.string())
})
export type ConfigInfo = z.infer<typeof ConfigInfo>

export const TemplateOmission = z.object({ section: z.string(), path: z.string(), reason: z.string() })

/** The secret-free template envelope, as produced and as accepted back. */
export const TemplateEnvelope = z.object({
  kind: z.literal(TEMPLATE_KIND),
  version: z.literal(TEMPLATE_VERSION),
  service: ServiceName,
  createdAt: z.iso.datetime(),
  contains: z.literal('no-secrets'),
  omitted: z.array(TemplateOmission),
  sections: z.record(z.string(), z.unknown())
})
export type TemplateEnvelope = z.infer<typeof TemplateEnvelope>

/** POST /api/config/template/plan; the template is checked by the operation (CONFIG_INVALID_TEMPLATE). */
export const TemplatePlanInput = z.strictObject({ template: z.unknown() })
/** POST /api/config/template/import. */
export const TemplateImportInput = z.strictObject({ template: z.unknown(), confirm: z.boolean().optional() })
export const ImportOptions = TemplateImportInput.omit({ template: true })

export const TemplatePlanReply = z.object({ service: z.string(), sections: z.record(z.string(), SectionPlanSchema), warnings: z.array(z.string()) })
export type TemplatePlanReply = z.infer<typeof TemplatePlanReply>
export const TemplateImportReply = TemplatePlanReply.extend({ preRestoreSnapshot: z.string() })
export type TemplateImportReply = z.infer<typeof TemplateImportReply>

export const BackupArchive = z.object({
  name: z.string(),
  bytes: z.number().int().min(0),
  modifiedAt: z.string(),
  ageHours: z.number().min(0),
  freshness: z.enum(['fresh', 'stale', 'old']),
  newest: z.boolean()
})
export const BackupsReply = z.object({
  available: z.boolean(),
  dir: z.string().optional(),
  archives: z.array(BackupArchive),
  commands: z.array(z.string()),
  note: z.string(),
  canRunHere: z.literal(false)
})
export type BackupsReply = z.infer<typeof BackupsReply>

/** A snapshot file (`<dir>/<id>.json`, mode 0600): metadata plus every section's full payload. */
export const SnapshotFile = z.object({
  kind: z.literal(SNAPSHOT_FILE_KIND),
  v: z.literal(SNAPSHOT_FILE_VERSION),
  id: z.string(),
  service: ServiceName,
  createdAt: z.iso.datetime(),
  note: SnapshotNote.optional(),
  reason: SnapshotReason,
  sections: z.record(SectionName, z.unknown())
})
export type SnapshotFile = z.infer<typeof SnapshotFile>

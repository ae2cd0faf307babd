/**
 * @packageDocumentation
 * `@arus/config-snapshots` — on-box config snapshots, secret-free templates, plan/restore
 * and the backups index, shared by every Arus daemon (panel, broadcaster, library,
 * reseller). The package knows no daemon: a daemon plugs in its {@link ConfigSection}s
 * (export, schema, template stripping, one apply path for plan and restore) and mounts the
 * operations with {@link configRoutes} (HTTP) and {@link configCommands} (CLI).
 *
 * Spec: /work/shared/spec/1-panel.md "Config snapshots, templates, backups (shared by
 * panel, broadcaster, library, reseller)", "Errors" and "Limits"; 2-broadcaster-library-
 * reseller-mcp.md "shared config and backup routes".
 */
import type { z } from 'zod'
import type { Activity, Logger } from '@arus/service'
import type {
  BackupsReply, ConfigInfo, ImportOptions, PlanInput, PlanReply, RestoreInput, RestoreReply, SnapshotList, SnapshotMeta,
  TakeSnapshotInput, TemplateEnvelope, TemplateImportReply, TemplatePlanReply
} from './schemas.js'
import { ConfigSnapshotsImpl } from './snapshots.js'

export { ConfigError, CONFIG_ERROR_CODES } from './errors.js'
export type { ConfigErrorCode } from './errors.js'
export * from './constants.js'
export {
  ServiceName, SectionName, SnapshotIdParam, SnapshotIdParams, SnapshotNote, SnapshotReason, TakeSnapshotInput, TakeSnapshotBody,
  SectionSize, SnapshotMeta, SnapshotList, SectionPlanSchema, PlanInput, RestoreInput, PlanReply, RestoreReply, ConfigInfo,
  TemplateOmission, TemplateEnvelope, TemplatePlanInput, TemplateImportInput, ImportOptions, TemplatePlanReply, TemplateImportReply,
  BackupArchive, BackupsReply, SnapshotFile
} from './schemas.js'
export { isSnapshotId } from './ids.js'
export { configRoutes } from './config-routes.js'
export { configCommands } from './config-commands.js'
export type { ConfigCommandsHandle } from './config-commands.js'

/** What a section's apply did (restore) or would do (plan). Ids are the section's own. */
export interface SectionPlan {
  added: string[]
  changed: string[]
  leftAlone: string[]
  removed: string[]
  skipped: Array<{ id: string; reason: string }>
  warnings: string[]
}

/** Options of {@link ConfigSection.apply}. */
export interface ApplyInit {
  /** true: a plan; the section must make no writes. */
  dryRun: boolean
  /** Also remove live entries the payload lacks (restores are additive otherwise). */
  removeExtra: boolean
  /** Where the payload comes from: a template holds no secrets and no entitlements. */
  source: 'snapshot' | 'template'
}

/** One part of a daemon's config, plugged in by the daemon. */
export interface ConfigSection<T = unknown> {
  /** Section name, e.g. 'streams' (lowercase letters, digits, -). */
  name: string
  /** Validates the payload of a snapshot file or template (and the section's own export). */
  schema: z.ZodType<T>
  /** One line for the notes of GET /api/config. */
  describe?: string
  /** The full current state, secrets included: what goes into snapshots. JSON-ready data. */
  export(): Promise<T>
  /** true: never in templates (users and grants, feed identities); listed in `omitted`. */
  snapshotOnly?: boolean
  /** Strips secrets for a template and names each removal; required unless snapshotOnly. */
  toTemplate?(data: T): { data: T; omitted: Array<{ path: string; reason: string }> }
  /** Default true; false: plan and restore list the section under skipped without calling apply. */
  restoreSupported?: boolean
  /** The one code path of plan (dryRun: no writes) and restore. The section decides its ids. */
  apply(data: T, opts: ApplyInit): Promise<SectionPlan>
}

/** Options and collaborators of {@link createConfigSnapshots}. */
export interface ConfigSnapshotsInit {
  /** The daemon: 'panel', 'broadcaster', 'library', 'reseller'. Templates of another service are refused. */
  service: string
  /** Snapshot directory (e.g. DATA_DIR/config-snapshots); created 0700 on the first take, files 0600. */
  dir: string
  /** CONFIG_SNAPSHOT_KEEP (its default lives in the kit's configSnapshotEnv): newest snapshots kept, at least 1. */
  keep: number
  /** BACKUP_DIR, read only; undefined: backups() answers available: false. */
  backupDir?: string
  /** The daemon's sections, in the order restores apply them. */
  sections: ConfigSection[]
  /** false for export-only services (reseller): plan, restore and template import answer 409. Default true. */
  restoreSupported?: boolean
  log: Logger
  /** Audit sink: takes, restores, imports and deletes are recorded there (else logged at info). */
  activity?: Activity
  /** Clock in epoch ms (default Date.now). */
  now?: () => number
}

/** Options of {@link ConfigSnapshots.take}. */
export type TakeSnapshotOptions = z.input<typeof TakeSnapshotInput>

/** The config operations of one daemon; the routes, the CLI and the daemon's own code call these. */
export interface ConfigSnapshots {
  readonly service: string
  /** GET /api/config: sections, restore support, snapshot dir, notes. */
  info(): ConfigInfo
  /** Takes a snapshot (reason 'manual' unless given), then prunes to the newest `keep`. Serialized. */
  take(opts?: TakeSnapshotOptions): Promise<SnapshotMeta>
  /**
   * take({ reason: `before-${what}` }): call it before deleting a user, stream, channel,
   * publisher or admin. Inside a restore or import the pre-restore snapshot covers the
   * change, so none is taken and that snapshot's metadata is returned.
   */
  beforeDestructive(what: string): Promise<SnapshotMeta>
  /** Metadata of every snapshot, newest first (never contents; corrupt files are logged and left out). */
  list(): Promise<SnapshotList>
  /** Metadata and section sizes of one snapshot. */
  show(id: string): Promise<SnapshotMeta>
  /** Dry run of restore(id): every section's apply with dryRun: true. */
  plan(id: string, opts?: z.input<typeof PlanInput>): Promise<PlanReply>
  /** Needs confirm: true. Takes a 'before-restore' snapshot, then applies each section in order. */
  restore(id: string, opts: z.input<typeof RestoreInput>): Promise<RestoreReply>
  /** Deletes one snapshot. */
  remove(id: string): Promise<{ deleted: string }>
  /** The secret-free template of the current config. */
  template(): Promise<TemplateEnvelope>
  /** Dry run of importTemplate. */
  planTemplate(template: unknown): Promise<TemplatePlanReply>
  /** Needs confirm: true. Takes a 'before-import' snapshot, then applies the template's sections (source 'template'). */
  importTemplate(template: unknown, opts: z.input<typeof ImportOptions>): Promise<TemplateImportReply>
  /** The archives of BACKUP_DIR with their age and freshness, and the commands to use them on the host. */
  backups(): Promise<BackupsReply>
}

export function createConfigSnapshots (init: ConfigSnapshotsInit): ConfigSnapshots {
  return new ConfigSnapshotsImpl(init)
}

import { AsyncLocalStorage } from 'node:async_hooks'
import type { z } from 'zod'
import type { ActivityFields, Logger } from '@arus/service'
import type { ConfigSection, ConfigSnapshots, ConfigSnapshotsInit, TakeSnapshotOptions } from './index.js'
import { applySections, parseSection } from './apply.js'
import { listBackups } from './backups.js'
import { REASON_MAX, SECTION_NAME_PATTERN, SNAPSHOT_FILE_KIND, SNAPSHOT_FILE_VERSION } from './constants.js'
import { ConfigError, fieldIssues } from './errors.js'
import { newSnapshotId, snapshotIdTime } from './ids.js'
import { createSerialQueue } from './queue.js'
import {
  ImportOptions, PlanInput, RestoreInput, ServiceName, TakeSnapshotInput, type BackupsReply, type ConfigInfo, type PlanReply,
  type RestoreReply, type SnapshotFile, type SnapshotList, type SnapshotMeta, type TemplateEnvelope, type TemplateImportReply,
  type TemplatePlanReply
} from './schemas.js'
import { deleteSnapshot, listSnapshotIds, pruneSnapshots, readSnapshot, snapshotMeta, writeSnapshot } from './store.js'
import { buildTemplate, parseTemplate } from './template.js'

/** Validates an operation input with its schema: CONFIG_INVALID_INPUT naming fields, never values. */
function parseInput<S extends z.ZodType> (schema: S, value: unknown, what: string): z.output<S> {
  const r = schema.safeParse(value ?? {})
  if (!r.success) throw ConfigError.invalidInput(what, fieldIssues(r.error.issues))
  return r.data
}

function checkInit (init: ConfigSnapshotsInit): void {
  if (!ServiceName.safeParse(init.service).success) throw ConfigError.invalidArgument('service must be lowercase letters, digits and -')
  if (typeof init.dir !== 'string' || init.dir === '') throw ConfigError.invalidArgument('dir is required')
  if (!Number.isSafeInteger(init.keep) || init.keep < 1) throw ConfigError.invalidArgument('keep must be an integer >= 1')
  const seen = new Set<string>()
  for (const s of init.sections) {
    if (!SECTION_NAME_PATTERN.test(s.name)) throw ConfigError.invalidArgument(`section name ${JSON.stringify(s.name).slice(0, 80)} must be lowercase letters, digits and -`)
    if (seen.has(s.name)) throw ConfigError.invalidArgument(`section ${s.name} is declared twice`)
    seen.add(s.name)
    if (s.snapshotOnly !== true && typeof s.toTemplate !== 'function') throw ConfigError.invalidArgument(`section ${s.name} needs toTemplate (or snapshotOnly: true)`)
  }
}

/** `before-<what>` with control characters blanked, cut to the reason limit. */
function destructiveReason (what: string): string {
  const clean = String(what).replace(/[\u0000-\u001f\u007f]+/g, ' ').trim() // eslint-disable-line no-control-regex
  return `before-${clean === '' ? 'change' : clean}`.slice(0, REASON_MAX)
}

export class ConfigSnapshotsImpl implements ConfigSnapshots {
  readonly service: string
  private readonly dir: string
  private readonly keep: number
  private readonly sections: readonly ConfigSection[]
  private readonly byName: ReadonlyMap<string, ConfigSection>
  private readonly log: Logger
  private readonly now: () => number
  private readonly audit: (fields: ActivityFields, msg: string) => void
  /** Takes and deletes: ids, writes and pruning never interleave. */
  private readonly takes = createSerialQueue()
  /** Restores and imports, one at a time (their pre-restore take goes through `takes`). */
  private readonly applies = createSerialQueue()
  /** The pre-restore snapshot of the restore or import running in this async context. */
  private readonly covering = new AsyncLocalStorage<SnapshotMeta>()

  constructor (private readonly init: ConfigSnapshotsInit) {
    checkInit(init)
    this.service = init.service
    this.dir = init.dir
    this.keep = init.keep
    this.sections = [...init.sections]
    this.byName = new Map(this.sections.map((s) => [s.name, s]))
    this.log = init.log
    this.now = init.now ?? Date.now
    const activity = init.activity
    this.audit = activity ? (fields, msg) => activity.record(fields, msg) : (fields, msg) => this.log.info(fields, msg)
  }

  info (): ConfigInfo {
    const restoreSupported = this.restoreSupported
    const notes = [
      `Snapshots hold secrets: they stay in ${this.dir} (files 0600) and are never served over HTTP.`,
      `The newest ${this.keep} snapshots are kept (CONFIG_SNAPSHOT_KEEP); one is also taken before destructive changes and before every restore or template import.`,
      restoreSupported
        ? 'Restore is additive unless removeExtra is set; plan shows what a restore would do; each section decides what it writes back.'
        : `${this.service} is export-only: plan, restore and template import are not supported.`,
      'Templates hold no secrets: snapshot-only sections and secret fields are left out and listed in omitted.',
      ...this.sections.filter((s) => s.describe !== undefined).map((s) => `${s.name}: ${s.describe!}`)
    ]
    return {
      service: this.service,
      sections: this.sections.map((s) => ({ name: s.name, snapshotOnly: s.snapshotOnly === true, restoreSupported: restoreSupported && s.restoreSupported !== false })),
      restoreSupported,
      snapshotDir: this.dir,
      keep: this.keep,
      notes
    }
  }

  async take (opts: TakeSnapshotOptions = {}): Promise<SnapshotMeta> {
    const input = parseInput(TakeSnapshotInput, opts, 'snapshot options')
    return this.takes(() => this.takeNow(input.reason ?? 'manual', input.note))
  }

  async beforeDestructive (what: string): Promise<SnapshotMeta> {
    const cover = this.covering.getStore()
    if (cover !== undefined) return cover
    return this.take({ reason: destructiveReason(what) })
  }

  async list (): Promise<SnapshotList> {
    const snapshots: SnapshotMeta[] = []
    for (const id of await listSnapshotIds(this.dir)) {
      try {
        snapshots.push(snapshotMeta(await readSnapshot(this.dir, id)))
      } catch (err) {
        const code = (err as { code?: unknown }).code
        if (code === 'CONFIG_SNAPSHOT_NOT_FOUND') continue // pruned meanwhile
        if (code !== 'CONFIG_SNAPSHOT_CORRUPT') throw err
        this.log.warn({ snapshot: id, code }, 'corrupt config snapshot left out of the list')
      }
    }
    return { snapshots }
  }

  async show (id: string): Promise<SnapshotMeta> {
    return snapshotMeta(await readSnapshot(this.dir, id))
  }

  async plan (id: string, opts: z.input<typeof PlanInput> = {}): Promise<PlanReply> {
    this.checkRestoreSupported()
    const input = parseInput(PlanInput, opts, 'plan options')
    const loaded = await this.load(id)
    const result = await applySections(this.sections, loaded.payloads, { dryRun: true, removeExtra: input.removeExtra === true, source: 'snapshot' }, 'snapshot')
    return { id, sections: result.sections, warnings: [...loaded.warnings, ...result.warnings] }
  }

  async restore (id: string, opts: z.input<typeof RestoreInput>): Promise<RestoreReply> {
    this.checkRestoreSupported()
    const input = parseInput(RestoreInput, opts, 'restore options')
    if (input.confirm !== true) throw ConfigError.confirmRequired('restore')
    const removeExtra = input.removeExtra === true
    return this.applies(async () => {
      const loaded = await this.load(id)
      const pre = await this.take({ reason: 'before-restore' })
      const result = await this.covering.run(pre, () => applySections(this.sections, loaded.payloads, { dryRun: false, removeExtra, source: 'snapshot' }, 'snapshot'))
      this.audit({ event: 'config.restore', snapshot: id, kind: 'snapshot', reason: removeExtra ? 'remove-extra' : 'additive', count: Object.keys(result.sections).length }, `config restored from snapshot ${id}`)
      return { id, preRestoreSnapshot: pre.id, sections: result.sections, warnings: [...loaded.warnings, ...result.warnings] }
    })
  }

  async remove (id: string): Promise<{ deleted: string }> {
    return this.takes(async () => {
      await deleteSnapshot(this.dir, id)
      this.audit({ event: 'config.snapshot-deleted', snapshot: id }, `config snapshot ${id} deleted`)
      return { deleted: id }
    })
  }

  async template (): Promise<TemplateEnvelope> {
    return buildTemplate(this.service, this.sections, this.now())
  }

  async planTemplate (template: unknown): Promise<TemplatePlanReply> {
    this.checkRestoreSupported()
    const parsed = parseTemplate(this.service, this.sections, template)
    const result = await applySections(this.sections, parsed.payloads, { dryRun: true, removeExtra: false, source: 'template' }, 'template')
    return { service: this.service, sections: result.sections, warnings: [...parsed.warnings, ...result.warnings] }
  }

  async importTemplate (template: unknown, opts: z.input<typeof ImportOptions>): Promise<TemplateImportReply> {
    this.checkRestoreSupported()
    const input = parseInput(ImportOptions, opts, 'import options')
    if (input.confirm !== true) throw ConfigError.confirmRequired('template import')
    const parsed = parseTemplate(this.service, this.sections, template)
    return this.applies(async () => {
      const pre = await this.take({ reason: 'before-import' })
      const result = await this.covering.run(pre, () => applySections(this.sections, parsed.payloads, { dryRun: false, removeExtra: false, source: 'template' }, 'template'))
      this.audit({ event: 'config.restore', snapshot: pre.id, kind: 'template', count: Object.keys(result.sections).length }, 'config template imported')
      return { service: this.service, preRestoreSnapshot: pre.id, sections: result.sections, warnings: [...parsed.warnings, ...result.warnings] }
    })
  }

  async backups (): Promise<BackupsReply> {
    return listBackups(this.init.backupDir, this.now())
  }

  private get restoreSupported (): boolean {
    return this.init.restoreSupported !== false
  }

  private checkRestoreSupported (): void {
    if (!this.restoreSupported) throw ConfigError.restoreUnsupported(this.service)
  }

  /** Runs inside the take queue. Ids stay strictly increasing even when the clock repeats or steps back. */
  private async takeNow (reason: string, note: string | undefined): Promise<SnapshotMeta> {
    const sections: Record<string, unknown> = {}
    for (const section of this.sections) {
      const data = await section.export()
      parseSection(section, data, (issues) => ConfigError.sectionInvalid(section.name, 'its export', issues))
      sections[section.name] = data
    }
    const newest = (await listSnapshotIds(this.dir))[0]
    const at = newest === undefined ? this.now() : Math.max(this.now(), snapshotIdTime(newest) + 1)
    const file: SnapshotFile = {
      kind: SNAPSHOT_FILE_KIND,
      v: SNAPSHOT_FILE_VERSION,
      id: newSnapshotId(at),
      service: this.service,
      createdAt: new Date(at).toISOString(),
      ...(note === undefined ? {} : { note }),
      reason,
      sections
    }
    await writeSnapshot(this.dir, file)
    const pruned = await pruneSnapshots(this.dir, this.keep)
    this.audit({ event: 'config.snapshot', snapshot: file.id, reason, count: pruned.length }, `config snapshot ${file.id} taken`)
    return snapshotMeta(file)
  }

  /** A snapshot of this service, each known section checked against its schema. */
  private async load (id: string): Promise<{ payloads: Map<string, unknown>; warnings: string[] }> {
    const file = await readSnapshot(this.dir, id)
    if (file.service !== this.service) throw ConfigError.wrongService('snapshot', file.service, this.service)
    const payloads = new Map<string, unknown>()
    const warnings: string[] = []
    for (const [name, data] of Object.entries(file.sections)) {
      const section = this.byName.get(name)
      if (section === undefined) { warnings.push(`section ${name} of the snapshot is unknown to this ${this.service}: ignored`); continue }
      payloads.set(name, parseSection(section, data, (issues) => ConfigError.snapshotCorrupt(id, 'a section does not match its schema', issues), ['sections', name]))
    }
    return { payloads, warnings }
  }
}

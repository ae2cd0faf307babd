import { readFile } from 'node:fs/promises'
import type { Command } from 'commander'
import { ServiceError, writeFileAtomic, type DaemonCli } from '@arus/service'
import type { ConfigSnapshots, SectionPlan } from './index.js'
import { ConfigError } from './errors.js'
import type { BackupsReply, SnapshotMeta } from './schemas.js'

/** What the `open` callback of {@link configCommands} yields: the operations, and how to release what they hold. */
export interface ConfigCommandsHandle { snapshots: ConfigSnapshots; close(): Promise<void> }

/**
 * The `config` command group of every daemon CLI: the same operations as the HTTP routes,
 * on the box. `open` builds the daemon's sections (it may need the store, so a running
 * daemon may hold it); the handle is closed after each command.
 */
export function configCommands (program: Command, cli: DaemonCli, open: () => Promise<ConfigCommandsHandle>): void {
  const use = async <T>(fn: (snapshots: ConfigSnapshots) => Promise<T>): Promise<T> => {
    const handle = await open()
    try {
      return await fn(handle.snapshots)
    } finally {
      await handle.close()
    }
  }
  const config = program.command('config').description('config snapshots, templates and backups (on-box; snapshots hold secrets)')

  config.command('snapshot').description('take a config snapshot now').option('--note <text>', 'operator note')
    .action(async (opts: { note?: string }) => {
      const meta = await use((s) => s.take({ note: opts.note }))
      cli.out(meta, `snapshot ${meta.id} taken\n${formatMeta(meta)}`)
    })
  config.command('list').description('config snapshots, newest first')
    .action(async () => {
      const list = await use((s) => s.list())
      cli.out(list, list.snapshots.map((m) => [m.id, m.createdAt, m.reason, m.note ?? ''].join('  ').trimEnd()).join('\n') || '(no snapshots)')
    })
  config.command('show <id>').description('metadata and section sizes of one snapshot')
    .action(async (id: string) => {
      const meta = await use((s) => s.show(id))
      cli.out(meta, formatMeta(meta))
    })
  config.command('plan <id>').description('dry run of a restore').option('--remove-extra', 'also remove what the snapshot lacks')
    .action(async (id: string, opts: { removeExtra?: boolean }) => {
      const plan = await use((s) => s.plan(id, { removeExtra: opts.removeExtra }))
      cli.out(plan, `plan of snapshot ${id}\n${formatPlans(plan.sections, plan.warnings)}`)
    })
  config.command('restore <id>').description('restore a snapshot (additive unless --remove-extra; a snapshot is taken first)')
    .option('--confirm', 'required: really restore').option('--remove-extra', 'also remove what the snapshot lacks')
    .action(async (id: string, opts: { confirm?: boolean; removeExtra?: boolean }) => {
      const done = await use((s) => s.restore(id, { confirm: opts.confirm, removeExtra: opts.removeExtra }))
      cli.out(done, `restored snapshot ${id} (taken first: ${done.preRestoreSnapshot})\n${formatPlans(done.sections, done.warnings)}`)
    })
  config.command('delete <id>').description('delete one snapshot')
    .action(async (id: string) => {
      cli.out(await use((s) => s.remove(id)), `snapshot ${id} deleted`)
    })
  config.command('template').description('print the secret-free config template (or write it with --out)').option('--out <file>', 'write it to this file (0600)')
    .action(async (opts: { out?: string }) => {
      const template = await use((s) => s.template())
      const text = JSON.stringify(template, null, 2)
      if (opts.out === undefined) { cli.io.stdout.write(text + '\n'); return }
      await writeFileAtomic(opts.out, text + '\n', { mode: 0o600 })
      const summary = { out: opts.out, service: template.service, sections: Object.keys(template.sections), omitted: template.omitted }
      cli.out(summary, `template written to ${opts.out} (sections: ${summary.sections.join(', ') || 'none'}; ${template.omitted.length} omissions)`)
    })
  config.command('import <file>').description('import a template (recreates structure, not entitlements; a snapshot is taken first)')
    .option('--confirm', 'required unless --plan: really import').option('--plan', 'dry run only')
    .action(async (file: string, opts: { confirm?: boolean; plan?: boolean }) => {
      const template = await readTemplateFile(file)
      if (opts.plan === true) {
        const plan = await use((s) => s.planTemplate(template))
        cli.out(plan, `plan of ${file}\n${formatPlans(plan.sections, plan.warnings)}`)
        return
      }
      const done = await use((s) => s.importTemplate(template, { confirm: opts.confirm }))
      cli.out(done, `imported ${file} (taken first: ${done.preRestoreSnapshot})\n${formatPlans(done.sections, done.warnings)}`)
    })
  config.command('backups').description('archives in BACKUP_DIR and how to use them on the host')
    .action(async () => {
      const backups = await use((s) => s.backups())
      cli.out(backups, formatBackups(backups))
    })
}

async function readTemplateFile (file: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOENT') throw ServiceError.fileNotFound(file)
    throw ServiceError.fileIo('read', file, err)
  }
  try {
    return JSON.parse(text)
  } catch {
    throw ConfigError.invalidTemplate('the file is not JSON')
  }
}

function formatMeta (m: SnapshotMeta): string {
  const head = [`id: ${m.id}`, `service: ${m.service}`, `created: ${m.createdAt}`, `reason: ${m.reason}`, ...(m.note === undefined ? [] : [`note: ${m.note}`])]
  const sections = m.sections.map((s) => `  ${s.name}: ${s.bytes} B${s.items === undefined ? '' : `, ${s.items} items`}`)
  return [...head, 'sections:', ...sections].join('\n')
}

function formatPlans (sections: Record<string, SectionPlan>, warnings: string[]): string {
  const lines: string[] = []
  for (const [name, p] of Object.entries(sections)) {
    lines.push(`${name}: ${p.added.length} added, ${p.changed.length} changed, ${p.leftAlone.length} left alone, ${p.removed.length} removed, ${p.skipped.length} skipped`)
    for (const [label, ids] of [['added', p.added], ['changed', p.changed], ['removed', p.removed]] as const) if (ids.length > 0) lines.push(`  ${label}: ${ids.join(', ')}`)
    for (const s of p.skipped) lines.push(`  skipped ${s.id}: ${s.reason}`)
    for (const w of p.warnings) lines.push(`  warning: ${w}`)
  }
  for (const w of warnings) lines.push(`warning: ${w}`)
  return lines.join('\n') || '(no sections)'
}

function formatBackups (b: BackupsReply): string {
  const lines = b.archives.map((a) => `${a.name}  ${a.ageHours} h  ${a.freshness}${a.newest ? '  (newest)' : ''}`)
  if (b.available && lines.length === 0) lines.push('(no archives)')
  return [...lines, ...(b.commands.length > 0 ? ['', 'on the host:', ...b.commands.map((c) => `  ${c}`)] : []), '', b.note].join('\n')
}

import type { Command } from 'commander'
import { parseInput, type DaemonCli, type Logger } from '@arus/service'
import { loadAlertsFile } from './alerts.js'
import { NOTE_MAX } from './constants.js'
import type { ReportsSettings } from './env.js'
import { ReportsError } from './errors.js'
import { testNotification } from './message.js'
import { createNotifier } from './notifier.js'
import { changeReportInFile, readReportsFile } from './report-store.js'
import { ListAlertsQuery, ListReportsQuery, RecordId, type Alert, type Report } from './schemas.js'

/** What the report commands need from the daemon's environment (read when a command runs). */
export interface ReportCommandsInit {
  open(): { dir: string; settings: ReportsSettings; serviceName: string; log: Logger }
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g

/**
 * The report commands (spec 1 "Admin CLI"): they work beside a running panel. Lists read the
 * files the panel writes atomically; ack and resolve change reports.json under the file lock
 * the panel also takes, and the panel merges the change (the further status wins), so an ack
 * from here and the panel's ingest lose nothing of each other. list-alerts is read-only (the
 * panel writes alerts at most every 5 s). test-notify uses the REPORTS_* environment of the shell.
 */
export function reportCommands (program: Command, cli: DaemonCli, init: ReportCommandsInit): void {
  program.command('list-reports').description('stored problem reports, newest first (works beside a running panel)')
    .option('--status <status>', 'new, ack or resolved').option('--channel <id>', 'stream id').option('--category <category>', 'report category')
    .option('--limit <n>', 'at most this many (default 100)')
    .action(async (opts: Record<string, string | undefined>) => {
      const q = parseInput(ListReportsQuery, strip(opts), 'options')
      const { dir, settings } = init.open()
      if (settings.retentionDays === 0) { cli.out({ enabled: false, reports: [] }, 'reports are disabled (REPORTS_RETENTION_DAYS=0)'); return }
      const reports = (await readReportsFile(dir))
        .filter((r) => (q.status === undefined || r.status === q.status) && (q.channel === undefined || r.channel === q.channel) && (q.category === undefined || r.category === q.category))
        .sort((a, b) => b.lastAt - a.lastAt).slice(0, q.limit)
      cli.out({ enabled: true, reports }, reports.map(formatReport).join('\n') || '(no reports)')
    })
  program.command('ack-report <id>').description('acknowledge a problem report (works beside a running panel)')
    .action(async (id: string) => {
      const r = await change(id, { to: 'ack' })
      cli.out({ report: r }, `report ${r.id}: ${r.status}`)
    })
  program.command('resolve-report <id> [note]').description('resolve a problem report with an optional note (works beside a running panel)')
    .action(async (id: string, note?: string) => {
      const clean = note === undefined ? null : note.replace(CONTROL, ' ').trim().slice(0, NOTE_MAX) || null
      const r = await change(id, { to: 'resolved', note: clean })
      cli.out({ report: r }, `report ${r.id}: ${r.status}${r.note ? ` (${r.note})` : ''}`)
    })
  program.command('list-alerts').description('problem alerts, newest first (read-only; works beside a running panel)')
    .option('--status <status>', 'open, ack or resolved')
    .action(async (opts: Record<string, string | undefined>) => {
      const q = parseInput(ListAlertsQuery, strip(opts), 'options')
      const { dir, settings } = init.open()
      if (settings.retentionDays === 0) { cli.out({ enabled: false, alerts: [] }, 'reports are disabled (REPORTS_RETENTION_DAYS=0)'); return }
      const alerts = (await loadAlertsFile(dir)).alerts.filter((a) => q.status === undefined || a.status === q.status).reverse()
      cli.out({ enabled: true, alerts }, alerts.map(formatAlert).join('\n') || '(no alerts)')
    })
  program.command('test-notify').description('send a synthetic notification through the targets of the REPORTS_* environment in this shell')
    .action(async () => {
      const { settings, serviceName, log } = init.open()
      const notifier = createNotifier({ webhookUrl: settings.webhookUrl, messenger: settings.messenger }, { log, retryMs: settings.notifyRetryMs })
      try {
        const results = await notifier.deliverNow(testNotification(serviceName))
        const reply = { enabled: notifier.targets.length > 0, targets: [...notifier.targets], results }
        cli.out(reply, results.map((r) => `${r.target}: ${r.ok ? 'ok' : 'failed'}${r.status !== undefined ? ` (HTTP ${r.status})` : ''}, ${r.attempts} attempt(s)${r.error ? `, ${r.error}` : ''}`).join('\n') || 'no notification target is set (REPORTS_WEBHOOK_URL, or REPORTS_MSGR_BOT_TOKEN with REPORTS_MSGR_CHAT_ID)')
      } finally {
        await notifier.close()
      }
    })

  async function change (id: string, to: Parameters<typeof changeReportInFile>[2]): Promise<Report> {
    parseInput(RecordId, id, 'report id')
    const { dir, settings, log } = init.open()
    if (settings.retentionDays === 0) throw ReportsError.disabled()
    const r = await changeReportInFile(dir, id, to, Date.now())
    log.info({ event: `report.${to.to === 'ack' ? 'acked' : 'resolved'}`, channel: r.channel, category: r.category }, 'problem report changed from the CLI')
    return r
  }
}

function strip (opts: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(opts).filter((e): e is [string, string] => e[1] !== undefined))
}

function formatReport (r: Report): string {
  return [r.id, new Date(r.lastAt).toISOString(), r.status, r.channel, r.category, `x${r.count}`, `reporter ${r.reporter}`, r.note ?? ''].join('  ').trimEnd()
}

function formatAlert (a: Alert): string {
  const tallies = Object.entries(a.categories).map(([c, n]) => `${c}:${n}`).join(',')
  return [a.id, new Date(a.openedAt).toISOString(), a.status, a.kind === 'login' ? 'login' : a.channel, `${a.reportersLowerBound ? '>=' : ''}${a.reporters} viewers`, tallies].join('  ')
}

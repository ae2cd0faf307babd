import type { Command } from 'commander'
import { configCommands } from '@arus/config-snapshots'
import { cliLogger, createDaemonProgram, processIO, runCommandLine, type CliIO, type Logger } from '@arus/service'
import { loadResellerConfig, type ResellerConfig } from './config.js'
import type { ResellerCore } from './core.js'
import { ResellerError } from './errors.js'
import { Ledger } from './ledger/ledger.js'
import { LedgerType } from './ledger/line.js'
import { assertDaemonStopped, heldByLiveProcess } from './lock.js'
import { main } from './main.js'
import { openCore } from './open.js'
import { resellerPaths } from './paths.js'
import { rotatePassword, seedRootAdmin, viewPrincipal } from './principals/ops.js'
import { Password } from './principals/model.js'
import { resellerSnapshots } from './snapshots.js'
import { loadBranding } from './branding.js'

function cliBase (io: CliIO, daemon: boolean): { config: ResellerConfig; log: Logger } {
  const config = loadResellerConfig(io.env)
  return { config, log: cliLogger(io, { name: 'arus-reseller', daemon, level: config.LOG_LEVEL, format: config.LOG_FORMAT }) }
}

/** The state, read-only while the daemon runs (it owns DATA_DIR then). */
async function openState (io: CliIO, write: string | null): Promise<{ core: ResellerCore; config: ResellerConfig; close(): Promise<void> }> {
  const { config, log } = cliBase(io, false)
  const lock = resellerPaths(config.DATA_DIR).lock
  if (write !== null) await assertDaemonStopped(lock, write)
  const core = await openCore(config, log, { readOnly: write === null && await heldByLiveProcess(lock) })
  return { core, config, close: async () => { await core.ledger.close(); await core.panel.close() } }
}

/** Builds the `arus-reseller` program; nothing runs until `parseAsync`. */
export function buildProgram (io: CliIO): Command {
  const { program, cli } = createDaemonProgram({
    name: 'arus-reseller',
    description: 'Arus reseller service: principals, a credit ledger and accounts on the panel. Configuration comes from the environment (docs/reseller.md).',
    io,
    runDescription: 'run the reseller daemon until SIGINT/SIGTERM',
    checkEnv: async () => { const config = loadResellerConfig(io.env); await loadBranding(config) },
    shutdownTimeoutMs: 15_000,
    run: () => {
      const { config, log } = cliBase(io, true)
      return main(config, log)
    }
  })
  program.command('create-admin <name>').description('seed the root admin (password from the prompt or stdin; once, with the daemon stopped)')
    .action(async (name: string) => {
      const password = Password.parse(await cli.password())
      const s = await openState(io, 'create-admin')
      try {
        cli.out(await seedRootAdmin(s.core, name, password), `root admin ${name} created`)
      } finally { await s.close() }
    })
  program.command('reset-password <name>').description('set any principal\'s password, ending its sessions (recovery; the daemon stopped)')
    .action(async (name: string) => {
      const password = Password.parse(await cli.password())
      const s = await openState(io, 'reset-password')
      try {
        cli.out(await rotatePassword(s.core, name, password), `password of ${name} set`)
      } finally { await s.close() }
    })
  program.command('list-principals').description('principals with role, parent and balance (works beside the running daemon)')
    .action(async () => {
      const s = await openState(io, null)
      try {
        const principals = s.core.principals.names().map((n) => viewPrincipal(s.core, n))
        cli.out({ principals }, principals.map((p) => `${p.username}  ${p.role}  parent=${p.parent ?? '-'}  balance=${p.balance}  ${p.effectiveStatus}`).join('\n') || '(no principals)')
      } finally { await s.close() }
    })
  program.command('ledger').description('the newest ledger lines (works beside the running daemon)')
    .option('--limit <n>', 'lines (1-1000)', '20')
    .option('--principal <name>', 'only lines of this principal')
    .option('--type <type>', `only this type (${LedgerType.options.join(', ')})`)
    .action(async (opts: { limit: string; principal?: string; type?: string }) => {
      const limit = Number(opts.limit)
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw ResellerError.invalid('--limit: an integer between 1 and 1000')
      const type = opts.type === undefined ? undefined : LedgerType.safeParse(opts.type).data
      if (opts.type !== undefined && type === undefined) throw ResellerError.invalid(`--type: one of ${LedgerType.options.join(', ')}`)
      const s = await openState(io, null)
      try {
        const lines = s.core.ledger.query({ limit, principal: opts.principal, type })
        cli.out({ lines }, lines.map((l) => `#${l.seq} ${new Date(l.ts).toISOString()} ${l.type} ${l.principal} ${l.amount > 0 ? '+' : ''}${l.amount} → ${l.balance}${l.counterparty ? ` (${l.counterparty} → ${l.counterpartyBalance})` : ''}${l.account ? ` [${l.account}]` : ''} ${l.note}`).join('\n') || '(empty ledger)')
      } finally { await s.close() }
    })
  program.command('verify-ledger').description('replay the ledger and check every balance and the invariant (exit 1 when broken; works beside the daemon)')
    .action(async () => {
      const { config } = cliBase(io, false)
      const r = await Ledger.verifyFile(resellerPaths(config.DATA_DIR).ledger)
      cli.out(r, `seq ${r.seq}: minted ${r.minted}, consumed ${r.consumed}, outstanding ${r.outstanding}; invariant ${r.invariantOk ? 'holds' : 'BROKEN'}${r.tornBytes > 0 ? `; a torn last line of ${r.tornBytes} bytes (cut at the next boot)` : ''}`)
      if (!r.invariantOk) throw ResellerError.of('RESELLER_LEDGER_CORRUPT', 'the ledger invariant does not hold')
    })
  configCommands(program, cli, async () => {
    const s = await openState(io, null)
    return { snapshots: resellerSnapshots(s.config, resellerPaths(s.config.DATA_DIR).configSnapshots, { principals: s.core.principals, accounts: s.core.accounts, log: s.core.log, activity: s.core.activity }), close: s.close }
  })
  return program
}

/** Runs one command line; resolves to the exit code (0 ok, 1 failure, 2 usage). */
export async function runCli (argv: string[], io: CliIO = processIO()): Promise<number> {
  return runCommandLine(() => buildProgram(io).parseAsync(argv), io)
}

import { Command } from 'commander'
import { onShutdown, processIO, runCommandLine, type CliIO } from '@arus/service'
import { cliBase } from './cli/context.js'
import { identityCommands } from './cli/identity-commands.js'
import { registryCommands } from './cli/registry-commands.js'
import { streamCommands } from './cli/stream-commands.js'
import { userCommands } from './cli/user-commands.js'
import { startPanel } from './daemon.js'
import { startAdminServer } from './http/server.js'

/** Builds the `arus-panel` program; nothing runs until `parseAsync`. */
export function buildProgram (io: CliIO): Command {
  const program = new Command('arus-panel')
    .description('Arus panel: the signed catalog, accounts, grants and publishers. Configuration comes from the environment (docs/panel.md).')
    .option('--json', 'print results as JSON')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
  const json = () => program.opts<{ json?: boolean }>().json === true

  program.command('run').description('run the panel daemon until SIGINT/SIGTERM')
    .action(async () => {
      const { config, log } = cliBase(io, { daemon: true })
      const panel = await startPanel(config, log)
      // The admin API and dashboard only when ADMIN_ENABLED=1 (spec 1 "What the service does" 4).
      const admin = config.ADMIN_ENABLED
        ? await startAdminServer({ ctx: panel.ctx, metrics: panel.metrics, startedAt: panel.startedAt, swarm: panel.swarm }, config, log)
            .catch(async (err: unknown) => { await panel.close(); throw err })
        : null
      // Runs until a signal; the shutdown stops the API, then closes the swarm and the store, then exits.
      onShutdown(log, [async () => { await admin?.close() }, () => panel.close()])
      await new Promise<never>(() => {})
    })
  identityCommands(program, io, json)
  userCommands(program, io, json)
  streamCommands(program, io, json)
  registryCommands(program, io, json)
  program.action(() => { program.outputHelp() })
  return program
}

/** Runs one command line; resolves to the exit code (0 ok, 1 failure, 2 usage). */
export async function runCli (argv: string[], io: CliIO = processIO()): Promise<number> {
  return runCommandLine(() => buildProgram(io).parseAsync(argv), io)
}

import type { Command } from 'commander'
import { configCommands } from '@arus/config-snapshots'
import { reportCommands } from '@arus/reports'
import { adminCommands, createDaemonProgram, processIO, runCommandLine, type CliIO } from '@arus/service'
import { cliBase, openConfig, withRegistries } from './cli/context.js'
import { loadPanelConfig } from './config.js'
import { identityCommands } from './cli/identity-commands.js'
import { packageCommands } from './cli/package-commands.js'
import { vodConfigCommands } from './cli/vod-config-commands.js'
import { sourceCommands } from './cli/source-commands.js'
import { registryCommands } from './cli/registry-commands.js'
import { streamCommands } from './cli/stream-commands.js'
import { userCommands } from './cli/user-commands.js'
import { main } from './main.js'
import { reportCommandsEnv } from './reports.js'

/** Builds the `arus-panel` program; nothing runs until `parseAsync`. */
export function buildProgram (io: CliIO): Command {
  const { program, cli } = createDaemonProgram({
    name: 'arus-panel',
    description: 'Arus panel: the signed catalog, accounts, grants and publishers. Configuration comes from the environment (docs/panel.md).',
    io,
    checkEnv: () => loadPanelConfig(io.env),
    runDescription: 'run the panel daemon until SIGINT/SIGTERM (the admin API too with ADMIN_ENABLED=1)',
    run: () => {
      const { config, log } = cliBase(io, { daemon: true })
      return main(config, log)
    }
  })
  identityCommands(program, cli)
  userCommands(program, cli)
  streamCommands(program, cli)
  adminCommands(program, cli, () => withRegistries(io, async (ctx) => ctx.admins))
  packageCommands(program, cli)
  vodConfigCommands(program, cli)
  sourceCommands(program, cli)
  registryCommands(program, cli)
  configCommands(program, cli, () => openConfig(io))
  reportCommands(program, cli, { open: () => { const { config, log } = cliBase(io); return reportCommandsEnv(config, log) } })
  return program
}

/** Runs one command line; resolves to the exit code (0 ok, 1 failure, 2 usage). */
export async function runCli (argv: string[], io: CliIO = processIO()): Promise<number> {
  return runCommandLine(() => buildProgram(io).parseAsync(argv), io)
}

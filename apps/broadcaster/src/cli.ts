import type { Command } from 'commander'
import { adminCommands, cliLogger, controlSettings, createDaemonProgram, processIO, runCommandLine, type CliIO, type Logger } from '@arus/service'
import { broadcasterActivity, broadcasterAdmins } from './audit.js'
import { loadBroadcasterConfig, type BroadcasterConfig } from './config.js'
import { main } from './main.js'
import { broadcasterPaths } from './paths.js'

/** Config + the kit's CLI logger (one-shot commands warn on stderr; the daemon logs to stdout). */
function cliBase (io: CliIO, daemon: boolean): { config: BroadcasterConfig; log: Logger } {
  const config = loadBroadcasterConfig(io.env)
  return { config, log: cliLogger(io, { name: 'arus-broadcaster', daemon, level: config.LOG_LEVEL, format: config.LOG_FORMAT }) }
}

/** Builds the `arus-broadcaster` program; nothing runs until `parseAsync`. */
export function buildProgram (io: CliIO): Command {
  const { program, cli } = createDaemonProgram({
    name: 'arus-broadcaster',
    description: 'Arus broadcaster: live channels from ffmpeg into encrypted P2P feeds, registered with the panel. Configuration comes from the environment (docs/broadcaster.md).',
    io,
    runDescription: 'run the broadcaster daemon until SIGINT/SIGTERM (channels stop, isLive false, then the swarm and the store close)',
    shutdownTimeoutMs: 20_000,
    run: () => {
      const { config, log } = cliBase(io, true)
      return main(config, log)
    }
  })
  adminCommands(program, cli, () => {
    const { config, log } = cliBase(io, false)
    return broadcasterAdmins(broadcasterPaths(config.DATA_DIR).admins, controlSettings(config, 'CONTROL'), broadcasterActivity(log))
  })
  return program
}

/** Runs one command line; resolves to the exit code (0 ok, 1 failure, 2 usage). */
export async function runCli (argv: string[], io: CliIO = processIO()): Promise<number> {
  return runCommandLine(() => buildProgram(io).parseAsync(argv), io)
}

import type { Command } from 'commander'
import { configCommands, type ConfigSnapshots } from '@arus/config-snapshots'
import { adminCommands, cliLogger, controlSettings, createDaemonProgram, processIO, runCommandLine, type Activity, type CliIO, type Logger } from '@arus/service'
import { libraryActivity, libraryAdmins } from './audit.js'
import { loadLibraryConfig, type LibraryConfig } from './config.js'
import { main } from './main.js'
import { libraryPaths } from './paths.js'
import { filesWriter, librarySnapshots } from './snapshots.js'
import { openTitleStore } from './titles/store.js'

/** Config + the kit's CLI logger (one-shot commands warn on stderr; the daemon logs to stdout). */
function cliBase (io: CliIO, daemon: boolean): { config: LibraryConfig; log: Logger } {
  const config = loadLibraryConfig(io.env)
  return { config, log: cliLogger(io, { name: 'arus-library', daemon, level: config.LOG_LEVEL, format: config.LOG_FORMAT }) }
}

/** Config snapshots of a one-shot command: read from the files; writing restores only while the daemon is stopped. */
async function openConfig (io: CliIO): Promise<{ snapshots: ConfigSnapshots; config: LibraryConfig; activity: Activity }> {
  const { config, log } = cliBase(io, false)
  const paths = libraryPaths(config.DATA_DIR)
  const titles = await openTitleStore(paths)
  const activity = libraryActivity(log)
  return { snapshots: librarySnapshots(config, paths, { titles, writer: filesWriter(titles, paths.store), log, activity }), config, activity }
}

/** Builds the `arus-library` program; nothing runs until `parseAsync`. */
export function buildProgram (io: CliIO): Command {
  const { program, cli } = createDaemonProgram({
    name: 'arus-library',
    description: 'Arus VOD library: titles ingested from files and URLs into encrypted P2P feeds, seeded and registered with the panel. Configuration comes from the environment (docs/library.md).',
    io,
    runDescription: 'run the library daemon until SIGINT/SIGTERM (an ingest in progress starts again at the next boot)',
    checkEnv: () => loadLibraryConfig(io.env),
    shutdownTimeoutMs: 20_000,
    run: () => {
      const { config, log } = cliBase(io, true)
      return main(config, log)
    }
  })
  program.command('list-titles').description('titles with their state (reads titles.json; works beside the running library)')
    .action(async () => {
      const { config } = cliBase(io, false)
      const titles = (await openTitleStore(libraryPaths(config.DATA_DIR))).list()
      cli.out({ titles }, titles.map((t) => [t.id, t.state, t.feedKey ?? '-', t.durationSec === null ? '-' : `${t.durationSec.toFixed(1)} s`, t.error ?? ''].join('  ').trimEnd()).join('\n') || '(no titles)')
    })
  adminCommands(program, cli, async () => {
    const { snapshots, config, activity } = await openConfig(io)
    return libraryAdmins(libraryPaths(config.DATA_DIR).admins, controlSettings(config, 'CONTROL'), { activity, beforeDestructive: (what) => snapshots.beforeDestructive(what) })
  })
  configCommands(program, cli, async () => ({ snapshots: (await openConfig(io)).snapshots, close: async () => {} }))
  return program
}

/** Runs one command line; resolves to the exit code (0 ok, 1 failure, 2 usage). */
export async function runCli (argv: string[], io: CliIO = processIO()): Promise<number> {
  return runCommandLine(() => buildProgram(io).parseAsync(argv), io)
}

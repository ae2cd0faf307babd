import type { Command } from 'commander'
import { configCommands, type ConfigSnapshots } from '@arus/config-snapshots'
import { adminCommands, cliLogger, controlSettings, createDaemonProgram, processIO, readSecretLine, runCommandLine, type Activity, type CliIO, type Logger } from '@arus/service'
import { broadcasterActivity, broadcasterAdmins } from './audit.js'
import { loadBroadcasterConfig, type BroadcasterConfig } from './config.js'
import { main } from './main.js'
import { attachStream } from './channels/attach.js'
import { openChannelStores } from './channels/store.js'
import { broadcasterPaths } from './paths.js'
import { assertDaemonStopped, broadcasterSnapshots, filesWriter } from './snapshots.js'

/** Config + the kit's CLI logger (one-shot commands warn on stderr; the daemon logs to stdout). */
function cliBase (io: CliIO, daemon: boolean): { config: BroadcasterConfig; log: Logger } {
  const config = loadBroadcasterConfig(io.env)
  return { config, log: cliLogger(io, { name: 'arus-broadcaster', daemon, level: config.LOG_LEVEL, format: config.LOG_FORMAT }) }
}

/**
 * The config snapshots of a one-shot command: read from the files (safe beside a running
 * daemon, whose writes are atomic); restores and imports write only while it is stopped.
 */
async function openConfig (io: CliIO): Promise<{ snapshots: ConfigSnapshots; config: BroadcasterConfig; activity: Activity }> {
  const { config, log } = cliBase(io, false)
  const paths = broadcasterPaths(config.DATA_DIR)
  const stores = await openChannelStores(paths)
  const activity = broadcasterActivity(log)
  return { snapshots: broadcasterSnapshots(config, paths, { stores, writer: filesWriter(stores, paths.store), log, activity }), config, activity }
}

/** Builds the `arus-broadcaster` program; nothing runs until `parseAsync`. */
export function buildProgram (io: CliIO): Command {
  const { program, cli } = createDaemonProgram({
    name: 'arus-broadcaster',
    description: 'Arus broadcaster: live channels from ffmpeg into encrypted P2P feeds, registered with the panel. Configuration comes from the environment (docs/broadcaster.md).',
    io,
    runDescription: 'run the broadcaster daemon until SIGINT/SIGTERM (channels stop, isLive false, then the swarm and the store close)',
    checkEnv: () => loadBroadcasterConfig(io.env),
    shutdownTimeoutMs: 20_000,
    run: () => {
      const { config, log } = cliBase(io, true)
      return main(config, log)
    }
  })
  adminCommands(program, cli, async () => {
    const { snapshots, config, activity } = await openConfig(io)
    return broadcasterAdmins(broadcasterPaths(config.DATA_DIR).admins, controlSettings(config, 'CONTROL'), { activity, beforeDestructive: (what) => snapshots.beforeDestructive(what) })
  })
  configCommands(program, cli, async () => ({ snapshots: (await openConfig(io)).snapshots, close: async () => {} }))
  program.command('attach-stream <id>')
    .description("attach a channel to a stream created in the panel before its first start: its content key becomes the stream's (key from the prompt or stdin; daemon stopped, else POST /api/channels/:id/attach)")
    .action(async (id: string) => {
      const paths = broadcasterPaths(cliBase(io, false).config.DATA_DIR)
      await assertDaemonStopped(paths.store)
      const key = await readSecretLine(io, 'stream key (hex): ')
      const r = await attachStream({ stores: await openChannelStores(paths), running: () => false }, id, { key })
      cli.out(r, r.changed ? `channel ${id} attached: it uses the stream's key from its first start` : `channel ${id} already uses that key`)
    })
  return program
}

/** Runs one command line; resolves to the exit code (0 ok, 1 failure, 2 usage). */
export async function runCli (argv: string[], io: CliIO = processIO()): Promise<number> {
  return runCommandLine(() => buildProgram(io).parseAsync(argv), io)
}

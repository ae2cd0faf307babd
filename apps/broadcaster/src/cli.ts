import { Command } from 'commander'
import { createLogger, onShutdown, printResult as print, processIO, readSecretLine, runCommandLine, type CliIO, type Logger } from '@arus/service'
import { loadBroadcasterConfig, type BroadcasterConfig } from './config.js'
import { BroadcasterError } from './errors.js'
import { startBroadcaster } from './main.js'
import { addAdmin, listAdmins, removeAdmin, setAdminPassword, type AdminCtx } from './ops/admins.js'
import { broadcasterPaths } from './paths.js'

/**
 * Config + a logger. One-shot commands log warnings to stderr (stdout carries their output);
 * the daemon logs at LOG_LEVEL to stdout.
 */
function cliBase (io: CliIO, daemon: boolean): { config: BroadcasterConfig; log: Logger } {
  const config = loadBroadcasterConfig(io.env)
  const level = daemon || io.env.LOG_LEVEL ? config.LOG_LEVEL : 'warn'
  const log = createLogger({ name: 'arus-broadcaster', level, format: config.LOG_FORMAT, destination: daemon ? io.stdout : io.stderr })
  return { config, log }
}

function adminCtx (io: CliIO): AdminCtx {
  const { config, log } = cliBase(io, false)
  return { adminsPath: broadcasterPaths(config.DATA_DIR).admins, argon: { opslimit: config.ARGON2_OPS, memlimit: config.ARGON2_MEM_KIB * 1024 }, log }
}

/** Builds the `arus-broadcaster` program; nothing runs until `parseAsync`. */
export function buildProgram (io: CliIO): Command {
  const program = new Command('arus-broadcaster')
    .description('Arus broadcaster: live channels from ffmpeg into encrypted P2P feeds, registered with the panel. Configuration comes from the environment (docs/broadcaster.md).')
    .option('--json', 'print results as JSON')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
  const json = () => program.opts<{ json?: boolean }>().json === true
  const out = (value: unknown, human?: string) => print(io, json(), value, human)
  const password = async () => {
    const pw = await readSecretLine(io, 'password: ')
    if (!pw) throw new BroadcasterError('BROADCASTER_NO_PASSWORD')
    return pw
  }

  program.command('run').description('run the broadcaster daemon until SIGINT/SIGTERM')
    .action(async () => {
      const { config, log } = cliBase(io, true)
      const running = await startBroadcaster(config, log)
      // Runs until a signal: channels stop (isLive false), then the swarm and the store close.
      onShutdown(log, [() => running.close()], { timeoutMs: 20_000 })
      await new Promise<never>(() => {})
    })
  program.command('add-admin <name>').description('add a control admin (password from the prompt or stdin)')
    .action(async (name: string) => { const pw = await password(); out(await addAdmin(adminCtx(io), { name, password: pw }), `admin ${name} added`) })
  program.command('remove-admin <name>').description('remove a control admin (ends its sessions)')
    .action(async (name: string) => { await removeAdmin(adminCtx(io), name); out({ removed: name }, `admin ${name} removed`) })
  program.command('set-admin-password <name>').description("rotate a control admin's password (ends its sessions)")
    .action(async (name: string) => { const pw = await password(); out(await setAdminPassword(adminCtx(io), name, pw), `password of admin ${name} rotated`) })
  program.command('list-admins').description('control admins')
    .action(async () => { const a = await listAdmins(adminCtx(io)); out(a, a.map((x) => x.name).join('\n') || '(no admins)') })
  program.action(() => { program.outputHelp() })
  return program
}

/** Runs one command line; resolves to the exit code (0 ok, 1 failure, 2 usage). */
export async function runCli (argv: string[], io: CliIO = processIO()): Promise<number> {
  return runCommandLine(() => buildProgram(io).parseAsync(argv), io)
}

import { Command } from 'commander'
import type { Logger } from 'pino'
import { printResult, readSecretLine, type CliIO } from './cli-io.js'
import { ServiceError } from './errors.js'
import { applyDaemonV8Flags } from './jit.js'
import { onShutdown } from './lifecycle.js'
import { createLogger, type LogFormat, type LogLevel } from './logger.js'

/**
 * The commander program every daemon CLI starts from: name, description, the global
 * `--json` flag, output to the injected streams, and the `run` command that starts the
 * daemon's composition root and stops it on SIGINT/SIGTERM. The daemon adds its own
 * commands (and the kit's admin and config commands) to `program`.
 */

/** What a daemon's commands share: output, the password prompt, the logger. */
export interface DaemonCli {
  io: CliIO
  /** True when `--json` was given. */
  json(): boolean
  /** Prints a result: JSON with --json, else `human` (or indented JSON). */
  out(value: unknown, human?: string): void
  /** Reads a password from the prompt or stdin; throws SERVICE_NO_PASSWORD when empty. */
  password(prompt?: string): Promise<string>
}

/** A started daemon: what `run` stops on a signal, and the logger the shutdown reports to. */
export interface RunningDaemon { log: Logger; close(): Promise<void> }

export interface DaemonProgramInit {
  /** The binary name (`arus-panel`). */
  name: string
  description: string
  io: CliIO
  /** Starts the daemon (its `main`); runs until SIGINT/SIGTERM. */
  run(): Promise<RunningDaemon>
  /** Description of the `run` command. */
  runDescription?: string
  /** Bound of the graceful shutdown (default 10 s). */
  shutdownTimeoutMs?: number
  /** Loads and checks the environment as `run` would (`check-env`: exit 0, or 1 naming each bad variable). */
  checkEnv?: () => unknown
}

export function createDaemonProgram (init: DaemonProgramInit): { program: Command; cli: DaemonCli } {
  const { io } = init
  const program = new Command(init.name)
    .description(init.description)
    .option('--json', 'print results as JSON')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
  const json = () => program.opts<{ json?: boolean }>().json === true
  const cli: DaemonCli = {
    io,
    json,
    out: (value, human) => printResult(io, json(), value, human),
    async password (prompt = 'password: ') {
      const pw = await readSecretLine(io, prompt)
      if (!pw) throw ServiceError.noPassword()
      return pw
    }
  }
  program.command('run').description(init.runDescription ?? `run the ${init.name} daemon until SIGINT/SIGTERM`)
    .action(async () => {
      applyDaemonV8Flags() // before the daemon's code first runs: baseline code for every function
      const running = await init.run()
      onShutdown(running.log, [() => running.close()], { timeoutMs: init.shutdownTimeoutMs ?? 10_000 })
      await new Promise<never>(() => {})
    })
  const checkEnv = init.checkEnv
  if (checkEnv !== undefined) {
    program.command('check-env').description('check the environment as `run` would, without starting (exit 1 naming each bad variable)')
      .action(async () => {
        await checkEnv()
        cli.out({ ok: true }, 'environment ok')
      })
  }
  program.action(() => { program.outputHelp() })
  return { program, cli }
}

/**
 * A CLI's logger: the daemon (`daemon: true`) logs at its LOG_LEVEL to stdout; one-shot
 * commands log warnings to stderr (stdout carries their output) unless LOG_LEVEL is set.
 */
export function cliLogger (io: CliIO, init: { name: string; daemon: boolean; level: LogLevel; format: LogFormat }): Logger {
  const level = init.daemon || io.env.LOG_LEVEL ? init.level : 'warn'
  return createLogger({ name: init.name, level, format: init.format, destination: init.daemon ? io.stdout : io.stderr })
}

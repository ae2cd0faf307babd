import type { Command } from 'commander'
import b4a from 'b4a'
import { cliLogger, createDaemonProgram, processIO, runCommandLine, type CliIO, type Logger } from '@arus/service'
import { loadRepeaterConfig, type RepeaterConfig } from './config.js'
import { RepeaterError } from './errors.js'
import { loadIdentity } from './identity.js'
import { main } from './main.js'
import { repeaterPaths } from './paths.js'

function cliBase (io: CliIO, daemon: boolean): { config: RepeaterConfig; log: Logger } {
  const config = loadRepeaterConfig(io.env)
  return { config, log: cliLogger(io, { name: 'arus-repeater', daemon, level: config.LOG_LEVEL, format: config.LOG_FORMAT }) }
}

/** Builds the `arus-repeater` program; nothing runs until `parseAsync`. */
export function buildProgram (io: CliIO): Command {
  const { program, cli } = createDaemonProgram({
    name: 'arus-repeater',
    description: 'Arus repeater: a keyless super-peer that mirrors the encrypted feeds of a panel\'s catalog and serves them to viewers. Configuration comes from the environment (docs/repeater.md).',
    io,
    runDescription: 'run the repeater until SIGINT/SIGTERM',
    checkEnv: () => loadRepeaterConfig(io.env),
    run: () => {
      const { config, log } = cliBase(io, true)
      return main(config, log)
    }
  })
  program.command('key').description('print the repeater\'s swarm public key (minted on first use): list it in an origin\'s ORIGIN_RELAY_KEYS')
    .action(async () => {
      const dataDir = io.env.DATA_DIR ?? './data/repeater'
      const id = (await loadIdentity(repeaterPaths(dataDir).swarmSeed, true))!
      const publicKey = b4a.toString(id.publicKey, 'hex')
      cli.out({ publicKey }, publicKey)
    })
  program.command('status').description('the running repeater\'s /healthz (needs STATUS_PORT): mirrors, disk use against the budget, connections')
    .action(async () => {
      const { config } = cliBase(io, false)
      if (config.STATUS_PORT === 0) throw RepeaterError.notRunning('STATUS_PORT is 0: the repeater opens no status port (set STATUS_PORT, restart it, then ask again)')
      let body: Record<string, unknown>
      try {
        const res = await fetch(`http://127.0.0.1:${config.STATUS_PORT}/healthz`, { signal: AbortSignal.timeout(5000) })
        body = await res.json() as Record<string, unknown>
      } catch {
        throw RepeaterError.notRunning(`nothing answers on 127.0.0.1:${config.STATUS_PORT}: is the repeater running?`)
      }
      const mirrors = Array.isArray(body.mirrors) ? body.mirrors as Array<Record<string, unknown>> : []
      const lines = [
        `public key ${String(body.publicKey)}`,
        `disk ${Math.round(Number(body.diskUsedBytes) / 1048576)} / ${Math.round(Number(body.diskBudgetBytes) / 1048576)} MiB${body.overBudget === true ? ' (over budget)' : ''}, ${String(body.swarmConnections)} connections`,
        ...mirrors.map((m) => `${String(m.id)}  ${String(m.type)}  ${String(m.state)}  peers ${String(m.peers)}  held ${Math.round(Number(m.bytesHeld) / 1024)} KiB  lag ${String(m.lag)}`)
      ]
      cli.out(body, lines.join('\n'))
    })
  return program
}

/** Runs one command line; resolves to the exit code (0 ok, 1 failure, 2 usage). */
export async function runCli (argv: string[], io: CliIO = processIO()): Promise<number> {
  return runCommandLine(() => buildProgram(io).parseAsync(argv), io)
}

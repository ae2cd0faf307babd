import { SwarmError } from '../errors.js'

/** Parsed `arus-testnet` options. */
export interface TestnetArgs {
  host: string
  port: number
  size: number
  help: boolean
}

export const USAGE = `Usage: arus-testnet [--host <ipv4>] [--port <n>] [--size <n>]

Starts a local DHT bootstrap network and prints BOOTSTRAP=<host>:<port> as the first
line of stdout. Runs until SIGINT or SIGTERM, then closes every node and exits 0.

  --host <ipv4>  address to advertise (default 127.0.0.1; a non-loopback address binds 0.0.0.0)
  --port <n>     UDP port of the bootstrap node (default 0: a free port)
  --size <n>     number of DHT nodes, 1..32 (default 3)
  -h, --help     show this help`

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/

function integer (name: string, text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text)) throw SwarmError.badCliArgument(`${name} must be an integer, got ${JSON.stringify(text)}`)
  const n = Number(text)
  if (n < min || n > max) throw SwarmError.badCliArgument(`${name} must be in ${min}..${max}, got ${n}`)
  return n
}

/**
 * Parses `arus-testnet` arguments (without the node and script paths). Accepts
 * `--flag value` and `--flag=value`. @throws SwarmError `SWARM_BAD_CLI_ARGUMENT`.
 */
export function parseTestnetArgs (argv: readonly string[]): TestnetArgs {
  const out: TestnetArgs = { host: '127.0.0.1', port: 0, size: 3, help: false }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if (arg === '-h' || arg === '--help') { out.help = true; continue }
    const eq = arg.indexOf('=')
    const flag = eq === -1 ? arg : arg.slice(0, eq)
    if (flag !== '--host' && flag !== '--port' && flag !== '--size') {
      throw SwarmError.badCliArgument(`unknown argument ${JSON.stringify(arg)}`)
    }
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1)
    if (value === undefined) throw SwarmError.badCliArgument(`${flag} needs a value`)
    if (flag === '--host') {
      if (!IPV4.test(value) || value === '0.0.0.0') {
        throw SwarmError.badCliArgument(`--host must be a dialable IPv4 address, got ${JSON.stringify(value)}`)
      }
      out.host = value
    } else if (flag === '--port') {
      out.port = integer('--port', value, 0, 65535)
    } else {
      out.size = integer('--size', value, 1, 32)
    }
  }
  return out
}

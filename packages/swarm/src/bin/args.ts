import { SwarmError } from '../errors.js'

/** Parsed `arus-testnet` options. */
export interface TestnetArgs {
  host: string
  port: number
  size: number
  /** `--hosts a,b,c`: one node per address, each bound to it (a network lab). */
  hosts: string[] | null
  help: boolean
}

export const USAGE = `Usage: arus-testnet [--host <ipv4>] [--port <n>] [--size <n>] [--hosts <ipv4,...>]

Starts a local DHT bootstrap network and prints BOOTSTRAP=<host>:<port> as the first
line of stdout. Runs until SIGINT or SIGTERM, then closes every node and exits 0.

  --host <ipv4>  address to advertise (default 127.0.0.1; a non-loopback address binds 0.0.0.0)
  --port <n>     UDP port of the bootstrap node (default 0: a free port)
  --size <n>     number of DHT nodes, 1..32 (default 3)
  --hosts <list> one node per address (comma-separated IPv4, 1..32), each bound to exactly
                 that address and --port (or a free one); the first is the bootstrap node.
                 For a network lab, whose NATed nodes need several DHT addresses to learn
                 their own; --host and --size are then ignored
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
  const out: TestnetArgs = { host: '127.0.0.1', port: 0, size: 3, hosts: null, help: false }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if (arg === '-h' || arg === '--help') { out.help = true; continue }
    const eq = arg.indexOf('=')
    const flag = eq === -1 ? arg : arg.slice(0, eq)
    if (flag !== '--host' && flag !== '--port' && flag !== '--size' && flag !== '--hosts') {
      throw SwarmError.badCliArgument(`unknown argument ${JSON.stringify(arg)}`)
    }
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1)
    if (value === undefined) throw SwarmError.badCliArgument(`${flag} needs a value`)
    if (flag === '--host') {
      if (!IPV4.test(value) || value === '0.0.0.0') {
        throw SwarmError.badCliArgument(`--host must be a dialable IPv4 address, got ${JSON.stringify(value)}`)
      }
      out.host = value
    } else if (flag === '--hosts') {
      const list = value.split(',')
      if (list.length > 32 || list.some((h) => !IPV4.test(h) || h === '0.0.0.0') || new Set(list).size !== list.length) {
        throw SwarmError.badCliArgument(`--hosts must list 1..32 distinct dialable IPv4 addresses, got ${JSON.stringify(value)}`)
      }
      out.hosts = list
    } else if (flag === '--port') {
      out.port = integer('--port', value, 0, 65535)
    } else {
      out.size = integer('--size', value, 1, 32)
    }
  }
  return out
}

import { SwarmError } from './errors.js'

/** One DHT bootstrap node. */
export interface BootstrapNode {
  host: string
  port: number
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/
// RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens.
const HOSTNAME = /^(?=.{1,253}$)[a-z\d]([a-z\d-]{0,61}[a-z\d])?(\.[a-z\d]([a-z\d-]{0,61}[a-z\d])?)*$/i
const PORT = /^\d{1,5}$/

/**
 * Checks one host as hyperdht accepts it: an IPv4 address, a host name (resolved over
 * IPv4 by the DHT), or hyperdht's `suggestedIPv4@hostname` form. Returns a reason or null.
 */
function hostProblem (host: string): string | null {
  if (host === '') return 'missing host'
  const at = host.indexOf('@')
  if (at !== -1) {
    const ip = host.slice(0, at)
    const name = host.slice(at + 1)
    if (!IPV4.test(ip)) return 'the part before "@" must be an IPv4 address'
    return HOSTNAME.test(name) ? null : 'the part after "@" must be a host name'
  }
  if (IPV4.test(host) || HOSTNAME.test(host)) return null
  return 'host must be an IPv4 address or a host name (IPv6 is not supported by the DHT)'
}

function portProblem (port: number): string | null {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? null : 'port must be an integer in 1..65535'
}

function parseEntry (entry: string): BootstrapNode {
  const colon = entry.lastIndexOf(':')
  if (colon === -1) throw SwarmError.badBootstrap(entry, 'expected host:port')
  const host = entry.slice(0, colon).trim()
  const portText = entry.slice(colon + 1).trim()
  const hostWhy = hostProblem(host)
  if (hostWhy !== null) throw SwarmError.badBootstrap(entry, hostWhy)
  if (!PORT.test(portText)) throw SwarmError.badBootstrap(entry, 'port must be a decimal number')
  const port = Number(portText)
  const portWhy = portProblem(port)
  if (portWhy !== null) throw SwarmError.badBootstrap(entry, portWhy)
  return { host, port }
}

/**
 * Parses a `BOOTSTRAP` value, `'host:port,host:port'`. Entries and the whole value are
 * trimmed; an empty (or all-blank) value gives `[]`, which means "use the public DHT".
 * @throws SwarmError `SWARM_BAD_BOOTSTRAP` naming the first bad entry (an empty entry
 *   between commas is bad too).
 */
export function parseBootstrap (value: string): BootstrapNode[] {
  if (typeof value !== 'string') throw SwarmError.badBootstrap(String(value), 'expected a string')
  const trimmed = value.trim()
  if (trimmed === '') return []
  return trimmed.split(',').map((part) => {
    const entry = part.trim()
    if (entry === '') throw SwarmError.badBootstrap(part, 'empty entry')
    return parseEntry(entry)
  })
}

/**
 * Checks an already-structured bootstrap list (as passed to `createSwarm`) and returns a
 * copy of it. @throws SwarmError `SWARM_BAD_BOOTSTRAP`.
 */
export function validateBootstrap (list: readonly BootstrapNode[]): BootstrapNode[] {
  if (!Array.isArray(list)) throw SwarmError.badBootstrap(String(list), 'expected an array of {host, port}')
  return list.map((node: unknown) => {
    const { host, port } = (node ?? {}) as Partial<BootstrapNode>
    const shown = `${String(host)}:${String(port)}`
    if (typeof host !== 'string') throw SwarmError.badBootstrap(shown, 'host must be a string')
    const hostWhy = hostProblem(host)
    if (hostWhy !== null) throw SwarmError.badBootstrap(shown, hostWhy)
    const portWhy = portProblem(port as number)
    if (portWhy !== null) throw SwarmError.badBootstrap(shown, portWhy)
    return { host, port: port as number }
  })
}

/** Formats a list back to the `BOOTSTRAP` form, `'host:port,host:port'` (`[]` gives `''`). */
export function formatBootstrap (list: readonly BootstrapNode[]): string {
  return validateBootstrap(list).map(({ host, port }) => `${host}:${port}`).join(',')
}

/** True for `127.x.x.x` and `localhost`. */
export function isLoopbackHost (host: string): boolean {
  return host === 'localhost' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

/**
 * True when the list is non-empty and every host is loopback (`127.x` or `localhost`):
 * a local test network. `[]` (the public DHT) is not loopback.
 */
export function isLoopbackBootstrap (list: readonly BootstrapNode[]): boolean {
  return list.length > 0 && list.every((node) => isLoopbackHost(node.host))
}

import { BlockList, isIP } from 'node:net'
import type { FastifyRequest } from 'fastify'
import { ResellerError } from './errors.js'

/**
 * Who may talk to the reseller (spec 2: it needs an address allowlist because third parties use
 * it). The client address is the socket's, or — with TRUST_PROXY_HEADER — the last entry of that
 * header (the one our own proxy appended; earlier entries are the client's word). Loopback
 * sockets without the header are the box itself and always pass.
 */

/** `1.2.3.4`, `1.2.3.0/24`, `2001:db8::/32` → a BlockList; null when an entry is malformed. */
export function parseAllowlist (entries: readonly string[]): BlockList | null {
  const list = new BlockList()
  for (const entry of entries) {
    const [addr = '', prefix, extra] = entry.split('/')
    const family = isIP(addr)
    if (family === 0 || extra !== undefined) return null
    const type = family === 4 ? 'ipv4' : 'ipv6'
    if (prefix === undefined) { list.addAddress(addr, type); continue }
    if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > (family === 4 ? 32 : 128)) return null
    list.addSubnet(addr, Number(prefix), type)
  }
  return list
}

const MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i

/** An IPv4-mapped IPv6 address as plain IPv4 (a dual-stack socket reports those). */
export function normalizeAddress (addr: string): string {
  return MAPPED.exec(addr)?.[1] ?? addr
}

const isLoopback = (addr: string) => addr === '::1' || addr.startsWith('127.')

/** The request's client address: the proxy header's last entry when configured and present, else the socket's. */
export function clientAddressOf (header: string | undefined): (req: FastifyRequest) => string {
  const name = header?.toLowerCase()
  return (req) => {
    const socket = normalizeAddress(req.socket.remoteAddress ?? '')
    if (name === undefined) return socket
    const raw = req.headers[name]
    const value = Array.isArray(raw) ? raw.join(',') : raw
    const last = value?.split(',').map((s) => s.trim()).filter((s) => s !== '').pop()
    return last !== undefined && isIP(normalizeAddress(last)) !== 0 ? normalizeAddress(last) : socket
  }
}

/** The kit's `beforeAuth` hook: refuses a client outside the list with RESELLER_ADDRESS_DENIED (403). */
export function allowlistGate (entries: readonly string[], clientAddress: (req: FastifyRequest) => string): ((req: FastifyRequest) => void) | undefined {
  if (entries.length === 0) return undefined
  const list = parseAllowlist(entries)
  if (list === null) throw ResellerError.invalid('CLIENT_ALLOWLIST is malformed')
  return (req) => {
    const addr = clientAddress(req)
    if (isLoopback(addr)) return
    const family = isIP(addr)
    if (family !== 0 && list.check(addr, family === 4 ? 'ipv4' : 'ipv6')) return
    throw ResellerError.addressDenied()
  }
}

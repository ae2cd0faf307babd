import { isIP } from 'node:net'

/**
 * True for a loopback bind address: 127.0.0.0/8, ::1 (also as ::ffff:127.x.y.z) or
 * `localhost`. Admin and control servers stay on loopback (spec 1 "What the service does" 4);
 * TLS and remote access are the operator's reverse proxy's business.
 */
export function isLoopbackHost (host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1')
  if (h === 'localhost' || h === 'localhost.') return true
  if (isIP(h) === 4) return h.startsWith('127.')
  if (isIP(h) === 6) {
    if (h === '::1' || /^0{0,4}(:0{0,4}){6}:0{0,3}1$/.test(h)) return true
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h)
    return mapped !== null && mapped[1]!.startsWith('127.')
  }
  return false
}

import { env, type EnvSchema } from './env.js'
import { isLoopbackHost } from './http/loopback.js'

/**
 * The env sections every daemon shares, one implementation each: the swarm (DHT bootstrap
 * and binding), the admin/control HTTP server (with the prefix its spec names: `ADMIN_*`
 * for the panel, `CONTROL_*` for the broadcaster, library and reseller) and admin
 * authentication (login throttle, Argon2id cost). A daemon spreads them into its own
 * `z.object({...})`, so docs, defaults and validation come from one place.
 */

/** BOOTSTRAP and the DHT binding (spec 2 "Library environment"; VERSIONS.md: loopback implies firewalled false). */
export const swarmEnv = {
  BOOTSTRAP: env.str({ default: '' }).describe('DHT bootstrap list `host:port,...`; empty uses the public DHT. A loopback list binds the DHT to 127.0.0.1.'),
  SWARM_HOST: env.str({ optional: true }).describe('Address the DHT binds to (default: auto; 127.0.0.1 with a loopback BOOTSTRAP).'),
  SWARM_PORT: env.int({ min: 0, max: 65535, default: 0 }).describe('UDP port of the DHT (0 = random). Give a fixed port on a VPS with an open UDP port.'),
  SWARM_FIREWALLED: env.enum(['auto', '0', '1'], 'auto').describe('`0` announces an open address (VPS with an open UDP port, loopback tests); `auto` lets the DHT detect it.'),
  SWARM_MAX_PEERS: env.int({ min: 1, max: 10_000, default: 256 }).describe('Maximum swarm connections.')
}

/** UDP socket buffers of daemons that upload feeds (spec 2 "Limits": 4 and 4 MiB). */
export const socketBufferEnv = {
  SWARM_RCVBUF_MB: env.int({ min: 1, max: 256, default: 4 }).describe('UDP receive buffer requested for the DHT sockets, MiB.'),
  SWARM_SNDBUF_MB: env.int({ min: 1, max: 256, default: 4 }).describe('UDP send buffer requested for the DHT sockets, MiB.')
}

/** The parsed {@link swarmEnv} values. */
export interface SwarmEnv {
  BOOTSTRAP: string
  SWARM_HOST?: string | undefined
  SWARM_PORT: number
  SWARM_FIREWALLED: 'auto' | '0' | '1'
  SWARM_MAX_PEERS: number
}

/** Swarm options from {@link swarmEnv} (bootstrap still a string: the daemon parses it with @arus/swarm). */
export function swarmSettings (c: SwarmEnv): { bootstrap: string; maxPeers: number; host?: string; port?: number; firewalled?: boolean } {
  return {
    bootstrap: c.BOOTSTRAP,
    maxPeers: c.SWARM_MAX_PEERS,
    ...(c.SWARM_HOST ? { host: c.SWARM_HOST } : {}),
    ...(c.SWARM_PORT ? { port: c.SWARM_PORT } : {}),
    ...(c.SWARM_FIREWALLED === 'auto' ? {} : { firewalled: c.SWARM_FIREWALLED === '1' })
  }
}

/**
 * Each daemon's default loopback API port (spec 1 "What the service does" 4, spec 2's table):
 * one source for the daemons' own defaults, the reseller's default panel URL and the tool
 * server's tunnels, so they cannot drift apart. The repeater's own STATUS_PORT default stays 0
 * (no socket, docs/repeater.md "Status"); 3340 is the port the deploy pack gives it
 * (docker/site-init.sh --repeater, docs/deploy.md "Adding repeaters").
 */
export const DAEMON_PORTS = Object.freeze({ panel: 3210, broadcaster: 3310, library: 3320, reseller: 3330, repeater: 3340 } as const)

/** Login throttle and Argon2id cost of new verifiers (spec 1 "Authentication" 1-2). */
export const adminAuthEnv = {
  LOCKOUT_THRESHOLD: env.int({ min: 1, max: 10_000, default: 10 }).describe('Login attempts allowed per LOCKOUT_SECONDS, per username and per client address (admin logins; on the panel also viewer logins, per peer).'),
  LOCKOUT_SECONDS: env.int({ min: 1, max: 604_800, default: 900 }).describe('Length of the login throttle window in seconds.'),
  ARGON2_MEM_KIB: env.int({ min: 8, max: 4_194_304, default: 65_536 }).describe('Argon2id memory cost in KiB for new verifiers. Existing accounts keep their recorded cost until rotation.'),
  ARGON2_OPS: env.int({ min: 1, max: 20, default: 3 }).describe('Argon2id time cost (passes) for new verifiers.')
}

/** The variables of {@link controlEnv}`(P)`, typed one by one. */
export type ControlEnvSection<P extends string> =
  Record<`${P}_ENABLED` | `${P}_TRUST_PROXY`, EnvSchema<boolean>> &
  Record<`${P}_HOST`, EnvSchema<string>> &
  Record<`${P}_PORT` | `${P}_SESSION_TTL_HOURS` | `${P}_VERIFY_TIMEOUT_MS`, EnvSchema<number>>

/**
 * The control HTTP server's section under `prefix` (`ADMIN` or `CONTROL`): enable flag,
 * loopback-only bind, session lifetime, loginVerifyTimeoutMs and proxy trust.
 */
export function controlEnv<P extends string> (prefix: P, init: { port: number; what: string }): ControlEnvSection<P> {
  const section = {
    [`${prefix}_ENABLED`]: env.bool(false).describe(`Serve the ${init.what} (\`1\` to enable).`),
    [`${prefix}_HOST`]: env.host('127.0.0.1')
      .refine(isLoopbackHost, 'must be a loopback address (127.0.0.0/8, ::1 or localhost): put a TLS reverse proxy in front of it for remote access')
      .describe(`Address the ${init.what} binds to; loopback only, boot refuses any other.`),
    [`${prefix}_PORT`]: env.port(init.port).describe(`TCP port of the ${init.what} (0 picks a free port; the bound URL is logged).`),
    [`${prefix}_SESSION_TTL_HOURS`]: env.int({ min: 1, max: 8760, default: 12 }).describe('Lifetime of an admin session token from POST /api/login.'),
    [`${prefix}_VERIFY_TIMEOUT_MS`]: env.int({ min: 100, max: 600_000, default: 30_000 }).describe('loginVerifyTimeoutMs: budget of one admin password verification; past it the login gets 503 and the verify worker is replaced.'),
    [`${prefix}_TRUST_PROXY`]: env.bool(false).describe('Take the client address for the login lockout from X-Forwarded-For (set it when a reverse proxy on this host forwards the API).')
  }
  return section as unknown as ControlEnvSection<P>
}

/** What a control server needs from its env section, in units the kit takes. */
export interface ControlSettings {
  enabled: boolean
  host: string
  port: number
  sessionTtlMs: number
  verifyTimeoutMs: number
  trustProxy: boolean
  lockout: { threshold: number; windowSeconds: number }
  argon: { opslimit: number; memlimit: number }
}

/** {@link ControlSettings} from a config holding {@link controlEnv}`(prefix)` and {@link adminAuthEnv}. */
export function controlSettings (c: Record<string, unknown>, prefix: string): ControlSettings {
  const get = <T>(name: string) => c[name] as T
  return {
    enabled: get<boolean>(`${prefix}_ENABLED`),
    host: get<string>(`${prefix}_HOST`),
    port: get<number>(`${prefix}_PORT`),
    sessionTtlMs: get<number>(`${prefix}_SESSION_TTL_HOURS`) * 3_600_000,
    verifyTimeoutMs: get<number>(`${prefix}_VERIFY_TIMEOUT_MS`),
    trustProxy: get<boolean>(`${prefix}_TRUST_PROXY`),
    lockout: { threshold: get<number>('LOCKOUT_THRESHOLD'), windowSeconds: get<number>('LOCKOUT_SECONDS') },
    argon: { opslimit: get<number>('ARGON2_OPS'), memlimit: get<number>('ARGON2_MEM_KIB') * 1024 }
  }
}

/** Config snapshots and the backups index (spec 1 "Config snapshots, templates, backups"; "Limits"). */
export const configSnapshotEnv = {
  CONFIG_SNAPSHOT_KEEP: env.int({ min: 1, max: 1000, default: 20 }).describe('Config snapshots kept under DATA_DIR/config-snapshots (the newest; older ones are pruned after every new one).'),
  BACKUP_DIR: env.str({ optional: true }).describe('Read-only folder of backup archives that GET /api/backups lists (the host\'s backup job writes it; the daemon never does).')
}

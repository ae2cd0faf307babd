import { z } from 'zod'
import { env, isLoopbackHost, loadConfig, loggingEnv, type Env } from '@arus/service'
import type { PanelSettings } from './context.js'

/**
 * The panel's environment: one schema gives validation, types and docs/panel.md.
 * Parsed once at boot; an invalid value aborts boot naming the variable.
 */
export const panelEnvSchema = z.object({
  DATA_DIR: env.str({ default: './data/panel', min: 1 }).describe('Directory holding the store and the private files (keys, registries).'),
  BOOTSTRAP: env.str({ default: '' }).describe('DHT bootstrap list `host:port,...`; empty uses the public DHT. A loopback list binds the DHT to 127.0.0.1.'),
  SWARM_HOST: env.str({ optional: true }).describe('Address the DHT binds to (default: auto; 127.0.0.1 with a loopback BOOTSTRAP).'),
  SWARM_PORT: env.int({ min: 0, max: 65535, default: 0 }).describe('UDP port of the DHT (0 = random). Give a fixed port on a VPS with an open UDP port.'),
  SWARM_FIREWALLED: env.enum(['auto', '0', '1'], 'auto').describe('`0` announces an open address (VPS with an open UDP port, loopback tests); `auto` lets the DHT detect it.'),
  SWARM_MAX_PEERS: env.int({ min: 1, max: 10_000, default: 256 }).describe('Maximum swarm connections.'),
  SERVICE_NAME: env.str({ default: 'arus', min: 1, max: 64 }).describe('Service name shown to operators and in notifications.'),
  LOCKOUT_THRESHOLD: env.int({ min: 1, max: 10_000, default: 10 }).describe('Login attempts allowed per LOCKOUT_SECONDS, per username and per peer.'),
  LOCKOUT_SECONDS: env.int({ min: 1, max: 604_800, default: 900 }).describe('Length of the login throttle window in seconds.'),
  LEGACY_PUBLISHER: env.bool(true).describe('Accept registers signed with the legacy shared publisher key from init (implicit scope *). Set 0 once every site is enrolled.'),
  ARGON2_MEM_KIB: env.int({ min: 8, max: 4_194_304, default: 65_536 }).describe('Argon2id memory cost in KiB for new verifiers (viewers and admins). Existing accounts keep their recorded cost until rotation.'),
  ARGON2_OPS: env.int({ min: 1, max: 20, default: 3 }).describe('Argon2id time cost (passes) for new verifiers.'),
  POW_DIFFICULTY: env.int({ min: 0, max: 24, default: 12 }).describe('Leading zero bits the login proof of work needs.'),
  SESSION_TTL_HOURS: env.int({ min: 1, max: 8760, default: 168 }).describe('Lifetime of a viewer session token (offline validity after revocation).'),
  DEFAULT_MAX_DEVICES: env.int({ min: 1, max: 100, default: 5 }).describe('maxDevices given to new users.'),
  REGISTER_MAX_SKEW_SECONDS: env.int({ min: 10, max: 86_400, default: 600 }).describe('A register payload older or newer than this (by its ts) is refused as stale.'),
  ADMIN_ENABLED: env.bool(false).describe('Serve the admin HTTP API and the dashboard (docs/panel-api.md).'),
  ADMIN_HOST: env.host('127.0.0.1')
    .refine(isLoopbackHost, 'must be a loopback address (127.0.0.0/8, ::1 or localhost): the admin API stays on loopback; put a TLS reverse proxy in front of it for remote access')
    .describe('Address the admin HTTP API binds to; loopback only (spec 1 "What the service does" 4), boot refuses any other.'),
  ADMIN_PORT: env.port(3210).describe('TCP port of the admin HTTP API (0 picks a free port; the bound address is logged as `admin.listening`).'),
  ADMIN_SESSION_TTL_HOURS: env.int({ min: 1, max: 720, default: 12 }).describe('Lifetime of an admin session token from POST /api/login.'),
  ADMIN_VERIFY_TIMEOUT_MS: env.int({ min: 1, max: 600_000, default: 30_000 }).describe('loginVerifyTimeoutMs: budget of one admin password verification; past it the login gets 503 and the verify worker is replaced.'),
  ADMIN_TRUST_PROXY: env.bool(false).describe('Take the client address for the login lockout from X-Forwarded-For (set it when a reverse proxy on this host forwards the API).'),
  ...loggingEnv
})

export type PanelConfig = ReturnType<typeof loadPanelConfig>

export function loadPanelConfig (source: Env = process.env) {
  return loadConfig(panelEnvSchema, source)
}

export function panelSettings (c: PanelConfig): PanelSettings {
  return {
    argon: { opslimit: c.ARGON2_OPS, memlimit: c.ARGON2_MEM_KIB * 1024 },
    defaultMaxDevices: c.DEFAULT_MAX_DEVICES,
    sessionTtlMs: c.SESSION_TTL_HOURS * 3_600_000,
    lockoutThreshold: c.LOCKOUT_THRESHOLD,
    lockoutSeconds: c.LOCKOUT_SECONDS,
    legacyPublisher: c.LEGACY_PUBLISHER,
    powDifficulty: c.POW_DIFFICULTY,
    registerMaxSkewMs: c.REGISTER_MAX_SKEW_SECONDS * 1000,
    serviceName: c.SERVICE_NAME
  }
}

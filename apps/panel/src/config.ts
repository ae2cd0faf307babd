import { z } from 'zod'
import { env, loadConfig, loggingEnv, type Env } from '@arus/service'
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

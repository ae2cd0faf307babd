import { z } from 'zod'
import { reportsEnv } from '@arus/reports'
import { DAEMON_PORTS, adminAuthEnv, configSnapshotEnv, controlEnv, env, loadConfig, loggingEnv, swarmEnv, type Env } from '@arus/service'
import type { PanelSettings } from './context.js'

/**
 * The panel's environment: one schema gives validation, types and docs/panel.md.
 * Parsed once at boot; an invalid value aborts boot naming the variable.
 */
export const panelEnvSchema = z.object({
  DATA_DIR: env.str({ default: './data/panel', min: 1 }).describe('Directory holding the store and the private files (keys, registries).'),
  ...swarmEnv,
  SERVICE_NAME: env.str({ default: 'arus', min: 1, max: 64 }).describe('Service name shown to operators and in notifications.'),
  ...adminAuthEnv,
  // Narrower than the other daemons': since login key schedule 2 every viewer device runs this
  // Argon2id at login (docs/architecture.md "Login", "Cost on small devices").
  ARGON2_MEM_KIB: env.int({ min: 8, max: 262_144, default: 65_536 }).describe('Argon2id memory cost in KiB for new admin verifiers and viewer passwords (key schedule 2: every viewer device allocates it once per login, so at most 262144, 256 MiB). Existing accounts keep their recorded cost until their password is set again.'),
  LEGACY_PUBLISHER: env.bool(true).describe('Accept registers signed with the legacy shared publisher key from init (implicit scope *). Set 0 once every site is enrolled.'),
  POW_DIFFICULTY: env.int({ min: 0, max: 24, default: 12 }).describe('Leading zero bits the login proof of work needs.'),
  SESSION_TTL_HOURS: env.int({ min: 1, max: 8760, default: 168 }).describe('Lifetime of a viewer session token (offline validity after revocation).'),
  DEFAULT_MAX_DEVICES: env.int({ min: 1, max: 100, default: 5 }).describe('maxDevices given to new users.'),
  REGISTER_MAX_SKEW_SECONDS: env.int({ min: 10, max: 86_400, default: 600 }).describe('A register payload older or newer than this (by its ts) is refused as stale.'),
  SOURCES_MAX_BYTES: env.int({ min: 1024, max: 256 * 1024 * 1024, default: 8 * 1024 * 1024 }).describe('Largest remote source feed, in bytes, enforced while the body streams in (a larger one fails the pull; the last good state stays).'),
  SOURCES_MAX_CHANNELS: env.int({ min: 1, max: 100_000, default: 10_000 }).describe('Most entries a remote source feed may hold (more fails the pull).'),
  SOURCES_PULL_TIMEOUT_MS: env.int({ min: 1000, max: 600_000, default: 30_000 }).describe('Bound on one feed pull, redirects and body included.'),
  ANALYTICS_RETENTION_DAYS: env.int({ min: 0, max: 3650, default: 30 }).describe('UTC days of aggregate analytics kept under DATA_DIR/analytics (counts only; older days are pruned). 0 disables analytics: nothing is counted, GET /api/analytics answers enabled false, and a day salt or viewer hashes left by an earlier run are erased at start.'),
  ESCROW_EXPORT: env.bool(false).describe('Serve POST /api/identity/escrow (identity keys sealed under a passphrase; the caller\'s password re-checked, 3 attempts per hour, every attempt a security event). Off: the route does not exist; the CLI export-escrow works either way.'),
  ...reportsEnv,
  ...controlEnv('ADMIN', { port: DAEMON_PORTS.panel, what: 'admin HTTP API and dashboard (docs/panel-api.md)' }),
  ...configSnapshotEnv,
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
    serviceName: c.SERVICE_NAME,
    escrowExport: c.ESCROW_EXPORT,
    sources: { maxBytes: c.SOURCES_MAX_BYTES, maxChannels: c.SOURCES_MAX_CHANNELS, pullTimeoutMs: c.SOURCES_PULL_TIMEOUT_MS },
    snapshots: { keep: c.CONFIG_SNAPSHOT_KEEP, ...(c.BACKUP_DIR ? { backupDir: c.BACKUP_DIR } : {}) }
  }
}

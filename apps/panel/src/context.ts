import type { CatalogWriter } from '@arus/catalog'
import type { ConfigSnapshots } from '@arus/config-snapshots'
import type { Activity, AdminRegistry, Logger } from '@arus/service'
import type Hyperdrive from 'hyperdrive'
import type { PanelIdentity } from './identity.js'
import type { PanelPaths } from './paths.js'
import type { PanelRegistries } from './registries.js'

/** Tunables the operations need, derived once from the env (see config.ts). */
export interface PanelSettings {
  argon: { opslimit: number; memlimit: number }
  defaultMaxDevices: number
  sessionTtlMs: number
  lockoutThreshold: number
  lockoutSeconds: number
  legacyPublisher: boolean
  powDifficulty: number
  registerMaxSkewMs: number
  serviceName: string
  /** ESCROW_EXPORT: whether POST /api/identity/escrow exists (spec 1 "Authentication" 5). */
  escrowExport: boolean
  /** SOURCES_MAX_BYTES, SOURCES_MAX_CHANNELS, SOURCES_PULL_TIMEOUT_MS. */
  sources: { maxBytes: number; maxChannels: number; pullTimeoutMs: number }
  /** CONFIG_SNAPSHOT_KEEP and BACKUP_DIR. */
  snapshots: { keep: number; backupDir?: string }
}

/**
 * What an operation may touch, without the admin accounts and config snapshots: the config
 * sections restore through it (so a restore's own removals take no extra snapshot).
 */
export interface PanelCore {
  paths: PanelPaths
  settings: PanelSettings
  identity: PanelIdentity
  catalog: CatalogWriter
  registries: PanelRegistries
  assets: Hyperdrive
  log: Logger
  now: () => number
  /** Where operations audit what they did: logged, and kept in the daemon's ring (GET /api/observability). */
  activity: Activity
}

/** What an operation may touch. Built by open.ts for main.ts (daemon) and cli.ts (one-shot commands). */
export interface PanelContext extends PanelCore {
  /** Admin accounts of the HTTP API (the kit's registry, private/admins.json). */
  admins: AdminRegistry
  /** Config snapshots: destructive operations call `beforeDestructive` first. */
  snapshots: ConfigSnapshots
}

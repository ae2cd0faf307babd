import type { CatalogWriter } from '@arus/catalog'
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
}

/** What an operation may touch. Built by main.ts (daemon) or cli.ts (one-shot command). */
export interface PanelContext {
  paths: PanelPaths
  settings: PanelSettings
  identity: PanelIdentity
  catalog: CatalogWriter
  registries: PanelRegistries
  /** Admin accounts of the HTTP API (the kit's registry, private/admins.json). */
  admins: AdminRegistry
  assets: Hyperdrive
  log: Logger
  now: () => number
  /** Where operations audit what they did: logged, and kept in the daemon's ring (GET /api/observability). */
  activity: Activity
}

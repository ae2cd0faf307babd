import { join } from 'node:path'

/** Where everything lives under DATA_DIR. Private files are 0600 in a 0700 directory. */
export interface PanelPaths {
  dataDir: string
  store: string
  privateDir: string
  /** Config snapshots (0700; files 0600): they hold secrets. */
  configSnapshots: string
  identity: string
  streamKeys: string
  publishers: string
  admins: string
  /** Channel packages (spec 1 "Package"). */
  packages: string
  /** Grant provenance per user: packages held and manual grants. */
  entitlements: string
  /** Remote sources (their urls may hold credentials). */
  sources: string
  /** ETags and last reports of the sources. */
  sourceState: string
  legacyPublisherKey: string
}

export function panelPaths (dataDir: string): PanelPaths {
  const privateDir = join(dataDir, 'private')
  return {
    dataDir,
    store: join(dataDir, 'store'),
    privateDir,
    configSnapshots: join(dataDir, 'config-snapshots'),
    identity: join(privateDir, 'identity.json'),
    streamKeys: join(privateDir, 'stream-keys.json'),
    publishers: join(privateDir, 'publishers.json'),
    admins: join(privateDir, 'admins.json'),
    packages: join(privateDir, 'packages.json'),
    entitlements: join(privateDir, 'entitlements.json'),
    sources: join(privateDir, 'sources.json'),
    sourceState: join(privateDir, 'source-state.json'),
    legacyPublisherKey: join(privateDir, 'legacy-publisher.key')
  }
}

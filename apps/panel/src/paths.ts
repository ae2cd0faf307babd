import { join } from 'node:path'

/** Where everything lives under DATA_DIR. Private files are 0600 in a 0700 directory. */
export interface PanelPaths {
  dataDir: string
  store: string
  privateDir: string
  /** Config snapshots (0700; files 0600): they hold secrets. */
  configSnapshots: string
  /** Analytics day files (counts only, spec 1 "Analytics"): outside the catalog, never with ANALYTICS_RETENTION_DAYS=0. */
  analytics: string
  /** The current UTC day's viewer salt (analytics): deleted at day rollover. */
  analyticsSalt: string
  identity: string
  streamKeys: string
  publishers: string
  admins: string
  /** Channel packages (spec 1 "Package"). */
  packages: string
  /** Grant provenance per user: packages held and manual grants. */
  entitlements: string
  /** Grant group keys (issue 43): per group its generation, key and whether a holder left since. */
  groupKeys: string
  /** Remote sources (their urls may hold credentials). */
  sources: string
  /** ETags and last reports of the sources. */
  sourceState: string
  /** Source removals made beside the running panel, until it purges or detaches their channels. */
  sourceRemovals: string
  legacyPublisherKey: string
  /** Problem reports and alerts (@arus/reports): outside the catalog, never with REPORTS_RETENTION_DAYS=0. */
  reports: string
}

export function panelPaths (dataDir: string): PanelPaths {
  const privateDir = join(dataDir, 'private')
  return {
    dataDir,
    store: join(dataDir, 'store'),
    privateDir,
    configSnapshots: join(dataDir, 'config-snapshots'),
    analytics: join(dataDir, 'analytics'),
    analyticsSalt: join(privateDir, 'analytics-salt.json'),
    identity: join(privateDir, 'identity.json'),
    streamKeys: join(privateDir, 'stream-keys.json'),
    publishers: join(privateDir, 'publishers.json'),
    admins: join(privateDir, 'admins.json'),
    packages: join(privateDir, 'packages.json'),
    entitlements: join(privateDir, 'entitlements.json'),
    groupKeys: join(privateDir, 'group-keys.json'),
    sources: join(privateDir, 'sources.json'),
    sourceState: join(privateDir, 'source-state.json'),
    sourceRemovals: join(privateDir, 'source-removals.json'),
    legacyPublisherKey: join(privateDir, 'legacy-publisher.key'),
    reports: join(dataDir, 'reports')
  }
}

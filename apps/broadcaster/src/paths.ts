import { join } from 'node:path'

/** Where everything lives under DATA_DIR. Private files are 0600 in a 0700 directory. */
export interface BroadcasterPaths {
  dataDir: string
  /** Corestore of every disk-buffered feed generation. */
  store: string
  /** Channel definitions (no secrets), channels.json. */
  channels: string
  privateDir: string
  /** Per-channel feed identity: content key, current generation and feedKey, retired generations. */
  feedKeys: string
  /** Control admins (Argon2id verifiers). */
  admins: string
  /** The control API's token signing key. */
  controlKey: string
  /** ffmpeg scratch dirs, one per running channel; wiped at boot. */
  scratch: string
  /** Generated offline slates, one per profile. */
  slates: string
  /** Config snapshots (0700; files 0600): they hold secrets. */
  configSnapshots: string
  incidents: string
  analytics: string
}

export function broadcasterPaths (dataDir: string): BroadcasterPaths {
  const privateDir = join(dataDir, 'private')
  return {
    dataDir,
    store: join(dataDir, 'store'),
    channels: join(dataDir, 'channels.json'),
    privateDir,
    feedKeys: join(privateDir, 'feed-keys.json'),
    admins: join(privateDir, 'admins.json'),
    controlKey: join(privateDir, 'control-key.json'),
    scratch: join(dataDir, 'scratch'),
    slates: join(dataDir, 'slates'),
    configSnapshots: join(dataDir, 'config-snapshots'),
    incidents: join(dataDir, 'incidents.json'),
    analytics: join(dataDir, 'analytics.json')
  }
}

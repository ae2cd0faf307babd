import { join } from 'node:path'

/** Where everything lives under DATA_DIR. Private files are 0600 in a 0700 directory. */
export interface LibraryPaths {
  dataDir: string
  /** Corestore of every title's feed generation (one namespace per title and generation). */
  store: string
  /** Title definitions and their state (no secrets). */
  titles: string
  privateDir: string
  /** Per-title content keys. */
  keys: string
  admins: string
  /** The control API's token signing key. */
  controlKey: string
  /** ffmpeg output of titles being converted; wiped at boot and after each import. */
  scratch: string
  configSnapshots: string
}

export function libraryPaths (dataDir: string): LibraryPaths {
  const privateDir = join(dataDir, 'private')
  return {
    dataDir,
    store: join(dataDir, 'store'),
    titles: join(dataDir, 'titles.json'),
    privateDir,
    keys: join(privateDir, 'title-keys.json'),
    admins: join(privateDir, 'admins.json'),
    controlKey: join(privateDir, 'control-key.json'),
    scratch: join(dataDir, 'scratch'),
    configSnapshots: join(dataDir, 'config-snapshots')
  }
}

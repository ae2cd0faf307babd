import { join } from 'node:path'

/** Where everything lives under DATA_DIR. Private files are 0600 in a 0700 directory. */
export interface RepeaterPaths {
  dataDir: string
  /** Corestore of every mirrored core: raw encrypted blocks, never a key to read them. */
  store: string
  /** The mirrors held, so a restart reclaims what is no longer selected. */
  mirrors: string
  privateDir: string
  /** The swarm identity's 32-byte seed (its public key is what origins trust: ORIGIN_RELAY_KEYS). */
  swarmSeed: string
}

export function repeaterPaths (dataDir: string): RepeaterPaths {
  const privateDir = join(dataDir, 'private')
  return {
    dataDir,
    store: join(dataDir, 'store'),
    mirrors: join(dataDir, 'mirrors.json'),
    privateDir,
    swarmSeed: join(privateDir, 'swarm-seed')
  }
}

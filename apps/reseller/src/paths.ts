import { join } from 'node:path'

/** Where everything lives under DATA_DIR. Private files are 0600 in a 0700 directory. */
export interface ResellerPaths {
  dataDir: string
  /** The credit ledger: one JSON line per operation, append-only, fsynced before an acknowledgement. */
  ledger: string
  /** Accounts: owner, expiry, months, packages, grants (no secrets). */
  accounts: string
  privateDir: string
  /** Principals with their Argon2id verifiers. */
  principals: string
  /** The API's token signing key. */
  controlKey: string
  /** Held by the running daemon; writing CLI commands refuse while it is held. */
  lock: string
  configSnapshots: string
}

export function resellerPaths (dataDir: string): ResellerPaths {
  const privateDir = join(dataDir, 'private')
  return {
    dataDir,
    ledger: join(dataDir, 'ledger.jsonl'),
    accounts: join(dataDir, 'accounts.json'),
    privateDir,
    principals: join(privateDir, 'principals.json'),
    controlKey: join(privateDir, 'control-key.json'),
    lock: join(dataDir, 'reseller.lock'),
    configSnapshots: join(dataDir, 'config-snapshots')
  }
}

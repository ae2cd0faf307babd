import { MapStore } from '../map-store.js'
import { AccountsFile, type AccountRecord } from './model.js'

/** The accounts (accounts.json): owner, expiry, months, packages, grants, status; no secrets. */
export class AccountStore extends MapStore<AccountRecord> {
  static async open (path: string): Promise<AccountStore> {
    return new AccountStore(path, 'accounts', 0o600, await MapStore.load<AccountRecord>(path, 'accounts', AccountsFile))
  }

  /** Accounts whose owner is one of `owners`. */
  ownedBy (owners: ReadonlySet<string>): Array<[string, AccountRecord]> {
    return this.entries().filter(([, a]) => owners.has(a.owner))
  }

  countOwnedBy (owner: string): number {
    let n = 0
    for (const a of this.map.values()) if (a.owner === owner) n++
    return n
  }
}

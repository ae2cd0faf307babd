import { MapStore } from '../map-store.js'
import { PrincipalsFile, type PrincipalRecord } from './model.js'

/** The principals (private/principals.json, 0600) and the tree they form. */
export class PrincipalStore extends MapStore<PrincipalRecord> {
  /** Principals being deleted: credit operations refuse them as targets (their balance is being reclaimed). */
  readonly deleting = new Set<string>()

  /** Exists and is not being deleted: a valid target of a credit operation. */
  creditable (name: string): boolean { return this.map.has(name) && !this.deleting.has(name) }

  static async open (path: string): Promise<PrincipalStore> {
    return new PrincipalStore(path, 'principals', 0o600, await MapStore.load<PrincipalRecord>(path, 'principals', PrincipalsFile))
  }

  /** The chain from `name` up to the root, `name` first. */
  chain (name: string): Array<[string, PrincipalRecord]> {
    const out: Array<[string, PrincipalRecord]> = []
    let at: string | null = name
    for (let hops = 0; at !== null && hops <= this.map.size; hops++) {
      const rec = this.map.get(at)
      if (!rec) break
      out.push([at, rec])
      at = rec.parent
    }
    return out
  }

  /** True when `name` is `ancestor` or below it. */
  isWithin (name: string, ancestor: string): boolean {
    return this.chain(name).some(([n]) => n === ancestor)
  }

  children (name: string): string[] {
    return this.names().filter((n) => this.map.get(n)!.parent === name)
  }

  /** `name` and everything below it. */
  subtree (name: string): string[] {
    return this.names().filter((n) => this.isWithin(n, name))
  }
}

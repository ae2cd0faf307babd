import type { PanelCore } from './context.js'
import { holdersOf, reconcileUsers } from './ops/reconcile.js'
import type { Entitlement, PackageEntry } from './registries.js'

/**
 * The running panel's pickup of registry edits made beside it (the CLI's package commands
 * write the private files while the panel holds the store): every `intervalMs` it compares
 * the packages and the grant provenance with what it saw last, and reconciles the users a
 * difference touches — the holders of a package whose members changed, and every user whose
 * provenance changed. Its own edits are reconciled already; re-running them writes nothing.
 */

/** How often the panel looks at the private package and provenance files. */
export const REGISTRY_WATCH_MS = 2000

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

export interface RegistryWatch { close(): Promise<void> }

export async function watchRegistries (ctx: PanelCore, init: { intervalMs?: number } = {}): Promise<RegistryWatch> {
  let packages: Record<string, PackageEntry> = await ctx.registries.packages.all()
  let entitlements: Record<string, Entitlement> = await ctx.registries.entitlements.all()
  let running: Promise<void> | null = null
  const tick = async () => {
    const nextPackages = await ctx.registries.packages.all()
    const nextEntitlements = await ctx.registries.entitlements.all()
    const changedPackages = [...new Set([...Object.keys(packages), ...Object.keys(nextPackages)])]
      .filter((n) => !same(packages[n]?.members, nextPackages[n]?.members))
    const changedUsers = [...new Set([...Object.keys(entitlements), ...Object.keys(nextEntitlements)])]
      .filter((u) => !same(entitlements[u], nextEntitlements[u]) && nextEntitlements[u] !== undefined)
    packages = nextPackages
    entitlements = nextEntitlements
    if (changedPackages.length === 0 && changedUsers.length === 0) return
    const users = new Set([...changedUsers, ...await holdersOf(ctx, changedPackages)])
    const report = await reconcileUsers(ctx, users)
    ctx.log.info({ event: 'registry.picked-up', packages: changedPackages.length, users: report.users, written: report.written }, 'registry edits reconciled')
  }
  const timer = setInterval(() => {
    if (running) return
    running = tick().catch((err: Error) => { ctx.log.warn({ event: 'registry.watch-failed', err: err.message }, 'registry pickup failed; retrying') })
      .finally(() => { running = null })
  }, init.intervalMs ?? REGISTRY_WATCH_MS)
  timer.unref()
  return {
    async close () {
      clearInterval(timer)
      await running
    }
  }
}

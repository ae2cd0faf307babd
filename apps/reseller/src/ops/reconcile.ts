import { z } from 'zod'
import type { ResellerCore } from '../core.js'
import { Ledger } from '../ledger/ledger.js'
import { settleAll } from '../accounts/settle.js'
import { userPath } from '../accounts/panel-user.js'

/**
 * The reconcile (RECONCILE_INTERVAL_SEC; GET/POST /api/ops/reconcile, admin tiers): settles
 * interrupted operations, re-verifies the ledger file end to end, and compares every account
 * with its panel user — missing, status, packages. Drifted packages are re-asserted when
 * RECONCILE_REPAIR is on; the rest is reported.
 */

export const Drift = z.object({
  account: z.string(),
  kind: z.enum(['missing', 'status', 'packages']),
  expected: z.unknown(),
  panel: z.unknown(),
  repaired: z.boolean()
})
export const ReconcileReply = z.object({
  ranAt: z.number().nullable(),
  durationMs: z.number().nullable(),
  accounts: z.number().int(),
  drift: z.array(Drift),
  repaired: z.number().int(),
  settled: z.number().int(),
  stillOpen: z.number().int(),
  ledgerOk: z.boolean().nullable(),
  error: z.string().nullable(),
  running: z.boolean()
})
export type ReconcileState = z.infer<typeof ReconcileReply>

interface PanelUserRow { username: string; status: string; packages: string[] }

const samePackages = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i])

export function createReconciler (core: ResellerCore) {
  let state: ReconcileState = { ranAt: null, durationMs: null, accounts: 0, drift: [], repaired: 0, settled: 0, stillOpen: 0, ledgerOk: null, error: null, running: false }
  let inFlight: Promise<ReconcileState> | null = null

  const runOnce = async (): Promise<ReconcileState> => {
    const started = core.now()
    state = { ...state, running: true }
    const drift: z.infer<typeof Drift>[] = []
    let repaired = 0
    let error: string | null = null
    const file = await Ledger.verifyFile(core.ledger.path).catch((err: Error) => { error = err.message; return null })
    const ledgerOk = file !== null && file.invariantOk && core.ledger.check().invariantOk
    const { settled, open } = await settleAll(core)
    try {
      const users = new Map<string, PanelUserRow>()
      let after: string | null = null
      for (let page = 0; page < 10_000; page++) {
        const q: string = `/api/users?limit=1000${after !== null ? `&after=${encodeURIComponent(after)}` : ''}`
        const r: { users: PanelUserRow[]; next: string | null } = await core.panel.call('GET', q)
        for (const u of r.users) users.set(u.username, u)
        if (r.next === null) break
        after = r.next
      }
      for (const [name, a] of core.accounts.entries()) {
        if (a.pending !== null) continue
        const u = users.get(name)
        if (!u) { drift.push({ account: name, kind: 'missing', expected: 'present', panel: null, repaired: false }); continue }
        const wanted = a.status === 'active' ? 'active' : 'disabled'
        if (u.status !== wanted) drift.push({ account: name, kind: 'status', expected: wanted, panel: u.status, repaired: false })
        if (a.packages !== null && !samePackages(a.packages, u.packages)) {
          let fixed = false
          if (core.settings.reconcileRepair) {
            try {
              await core.panel.call('POST', userPath(name, '/packages'), { packages: a.packages })
              fixed = true
              repaired++
            } catch (err) {
              error = (err as Error).message
            }
          }
          drift.push({ account: name, kind: 'packages', expected: a.packages, panel: u.packages, repaired: fixed })
        }
      }
    } catch (err) {
      error = (err as Error).message
    }
    if (drift.length > 0) core.log.warn({ event: 'reconcile.drift', drift: drift.length, repaired }, 'reconcile found accounts that differ from the panel')
    state = { ranAt: started, durationMs: core.now() - started, accounts: core.accounts.size, drift, repaired, settled, stillOpen: open, ledgerOk, error, running: false }
    return state
  }

  return {
    run (): Promise<ReconcileState> {
      inFlight ??= runOnce().finally(() => { inFlight = null })
      return inFlight
    },
    state: (): ReconcileState => state
  }
}
export type Reconciler = ReturnType<typeof createReconciler>

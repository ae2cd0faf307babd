import { createMetricsRegistry, Gauge, type Registry } from '@arus/service'
import type { ResellerCore } from './core.js'

/**
 * /metrics (spec 2 "GET /metrics"): the kit's process stats, principals, accounts by status,
 * panel reachability, the ledger's seq and its invariant (1 = holds), and outstanding credits.
 */
export function createResellerMetrics (core: ResellerCore): Registry {
  const registry = createMetricsRegistry()
  const registers = [registry]
  new Gauge({ name: 'arus_reseller_principals', help: 'Principals', registers, collect () { this.set(core.principals.size) } })
  new Gauge({
    name: 'arus_reseller_accounts',
    help: 'Accounts by status (active, disabled, expired, pending)',
    labelNames: ['status'],
    registers,
    collect () {
      const n = { active: 0, disabled: 0, expired: 0, pending: 0 }
      for (const [, a] of core.accounts.entries()) n[a.pending?.op === 'activate' ? 'pending' : a.status]++
      for (const [status, v] of Object.entries(n)) this.set({ status }, v)
    }
  })
  new Gauge({ name: 'arus_reseller_panel_reachable', help: '1 when the last panel call got an answer', registers, collect () { this.set(core.panel.health().reachable ? 1 : 0) } })
  new Gauge({ name: 'arus_reseller_ledger_seq', help: 'Lines in the credit ledger', registers, collect () { this.set(core.ledger.seq()) } })
  new Gauge({ name: 'arus_reseller_ledger_invariant_ok', help: '1 while the sum of balances equals minted minus consumed', registers, collect () { this.set(core.ledger.totals().invariantOk ? 1 : 0) } })
  new Gauge({ name: 'arus_reseller_credits_outstanding', help: 'Credits held by principals (minted minus consumed)', registers, collect () { this.set(core.ledger.totals().outstanding) } })
  return registry
}

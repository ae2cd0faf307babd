import { z } from 'zod'
import type { RouteTables } from '../routes.js'
import { callJson, routeTool, type RouteToolSpec, type ToolDef } from '../tool.js'

/** The reseller's tools (spec 2 "Tool groups": reseller, optional). */
export function resellerTools (t: RouteTables): ToolDef[] {
  const r = (s: Omit<RouteToolSpec, 'service'>) => routeTool(t, { ...s, service: 'reseller' })
  return [
    r({ name: 'reseller_status', route: 'GET /api/status', klass: 'R', title: 'Reseller KPIs' }),
    r({ name: 'reseller_system', route: 'GET /api/system', klass: 'R', title: 'Reseller service, host and panel facts' }),
    r({ name: 'reseller_list_principals', route: 'GET /api/principals', klass: 'R', title: 'List principals' }),
    r({ name: 'reseller_get_principal', route: 'GET /api/principals/:name', klass: 'R', title: 'Get a principal' }),
    r({ name: 'reseller_ledger', route: 'GET /api/ledger', klass: 'R', title: 'Credit ledger lines' }),
    r({ name: 'reseller_list_accounts', route: 'GET /api/accounts', klass: 'R', title: 'List accounts' }),
    r({ name: 'reseller_get_account', route: 'GET /api/accounts/:acct', klass: 'R', title: 'Get an account with its panel state' }),
    {
      name: 'reseller_trials',
      group: 'reseller',
      klass: 'R',
      title: 'Trial accounts and today\'s trial use',
      description: 'Trial accounts (GET /api/accounts?filter=trial) and the tool server\'s principal\'s trials today and cap (GET /api/me) on the reseller',
      service: 'reseller',
      input: z.strictObject({ owner: z.string().regex(/^[A-Za-z0-9_.@-]{1,64}$/).optional(), limit: z.number().int().min(1).max(500).optional() }),
      output: z.object({ trials: z.array(z.unknown()), total: z.number().int(), trialsToday: z.number().int(), trialDailyCap: z.number().int() }),
      async run (ctx, a) {
        const q = new URLSearchParams({ filter: 'trial', limit: String(a.limit ?? 50) })
        if (typeof a.owner === 'string') q.set('owner', a.owner)
        const list = await callJson(ctx, 'reseller', 'GET', `/api/accounts?${q.toString()}`)
        const me = await callJson(ctx, 'reseller', 'GET', '/api/me')
        return { data: { trials: list.items, total: list.total, trialsToday: me.trialsToday, trialDailyCap: me.trialDailyCap } }
      }
    },
    {
      name: 'reseller_ops_status',
      group: 'reseller',
      klass: 'R',
      title: 'Expiry sweep, reconcile and ledger state',
      description: 'The last reconcile (GET /api/ops/reconcile) with the sweep, ledger and panel reachability from /healthz on the reseller',
      service: 'reseller',
      input: z.strictObject({}),
      output: z.object({ reconcile: z.unknown(), sweep: z.unknown(), ledger: z.unknown(), panel: z.unknown() }),
      async run (ctx) {
        const reconcile = await callJson(ctx, 'reseller', 'GET', '/api/ops/reconcile')
        const health = await callJson(ctx, 'reseller', 'GET', '/healthz')
        return { data: { reconcile, sweep: health.sweep, ledger: health.ledger, panel: health.panel } }
      }
    },
    r({ name: 'reseller_add_principal', route: 'POST /api/principals', klass: 'W', title: 'Create a principal' }),
    r({ name: 'reseller_set_principal_password', route: 'POST /api/principals/:name/password', klass: 'W', title: 'Set a principal\'s password', idempotent: true }),
    r({ name: 'reseller_set_principal_limits', route: 'POST /api/principals/:name/limits', klass: 'W', title: 'Set a principal\'s device limit and trial cap', idempotent: true }),
    r({ name: 'reseller_grant_credits', route: 'POST /api/credits/mint', klass: 'W', title: 'Grant (mint) credits to a principal' }),
    r({ name: 'reseller_set_principal_status', route: 'POST /api/principals/:name/status', klass: 'D', title: 'Suspend or resume a principal (with-accounts also disables its accounts on the panel)' })
  ]
}

import type { z } from 'zod'
import { isAdminTier, type Caller } from '../access.js'
import { DAY_MS, type ResellerCore } from '../core.js'
import { EXPIRING_DAYS, type AccountDetail, type AccountView, type ListAccountsQuery, type PanelUserState } from './model.js'
import { findPanelUser } from './panel-user.js'
import { reachable, viewAccount } from './shared.js'

/** Reading accounts: the scoped, filtered, sorted list, and one account with its live panel state. */

export async function listAccounts (core: ResellerCore, caller: Caller, q: z.output<typeof ListAccountsQuery>): Promise<{ items: AccountView[]; total: number; offset: number; limit: number }> {
  const now = core.now()
  const needle = q.q?.toLowerCase()
  const soon = now + EXPIRING_DAYS * DAY_MS
  const scope = isAdminTier(caller.role) ? null : new Set(core.principals.subtree(caller.name))
  const rows = core.accounts.entries().filter(([name, a]) => {
    if (scope && !scope.has(a.owner)) return false
    if (q.owner !== undefined && a.owner !== q.owner) return false
    if (needle !== undefined && !name.toLowerCase().includes(needle) && !a.owner.toLowerCase().includes(needle)) return false
    switch (q.filter) {
      case 'active': return a.status === 'active' && a.pending === null
      case 'disabled': return a.status !== 'active'
      case 'expiring': return a.status === 'active' && a.pending === null && a.expiresAt <= soon
      case 'trial': return a.trial
      default: return true
    }
  }).map(([name, a]) => viewAccount(name, a))
  const key: Record<typeof q.sort, (v: AccountView) => string | number> = {
    name: (v) => v.name, expires: (v) => v.expiresAt, created: (v) => v.createdAt, status: (v) => v.status, owner: (v) => v.owner
  }
  const k = key[q.sort]
  const sign = q.dir === 'desc' ? -1 : 1
  rows.sort((x, y) => { const a = k(x); const b = k(y); return (a < b ? -1 : a > b ? 1 : x.name < y.name ? -1 : 1) * sign })
  return { items: rows.slice(q.offset, q.offset + q.limit), total: rows.length, offset: q.offset, limit: q.limit }
}

export async function getAccount (core: ResellerCore, caller: Caller, name: string): Promise<z.input<typeof AccountDetail>> {
  const a = reachable(core, caller, name)
  let panel: PanelUserState | null = null
  let panelError: string | null = null
  try {
    panel = await findPanelUser(core, name)
    if (panel === null) panelError = 'PANEL: the user does not exist on the panel'
  } catch (err) {
    panelError = (err as Error).message
  }
  return { ...viewAccount(name, a), panel, panelError }
}

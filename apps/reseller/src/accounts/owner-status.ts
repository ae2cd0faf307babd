import type { ResellerCore } from '../core.js'
import { setPanelStatus } from './panel-user.js'

/** A principal's with-accounts suspension or resume: every account of its subtree (resume: only those it disabled). */
export async function setOwnersAccountsStatus (core: ResellerCore, principal: string, status: 'active' | 'disabled'): Promise<{ changed: number; failed: string[] }> {
  const owners = new Set(core.principals.subtree(principal))
  let changed = 0
  const failed: string[] = []
  for (const [name] of core.accounts.ownedBy(owners)) {
    try {
      const done = await core.accountLock.run(name, async () => {
        const cur = core.accounts.get(name)
        if (!cur || cur.pending !== null) return false
        const wanted = status === 'disabled' ? cur.status === 'active' : cur.status === 'disabled' && cur.suspendedBy === principal && cur.expiresAt > core.now()
        if (!wanted) return false
        await setPanelStatus(core, name, status)
        await core.accounts.update(name, (c) => ({ rec: c && { ...c, status, suspendedBy: status === 'disabled' ? principal : null } }))
        return true
      })
      if (done) changed++
    } catch (err) {
      failed.push(name)
      core.log.warn({ event: 'account.status', account: name, err: (err as Error).message }, 'could not change an account with its principal')
    }
  }
  return { changed, failed }
}

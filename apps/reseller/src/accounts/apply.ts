import { DAY_MS, type ResellerCore } from '../core.js'
import { ResellerError } from '../errors.js'
import type { LedgerLine } from '../ledger/line.js'
import type { AccountRecord } from './model.js'

/**
 * What a committed ledger line does to the account record: shared by the operations
 * (ops.ts) and the settle's roll-forward after a crash (settle.ts). Local writes only.
 */

/** Applies a RENEW line to the record (also the settle's roll-forward). */
export async function applyRenew (core: ResellerCore, name: string, line: LedgerLine): Promise<AccountRecord> {
  const months = -line.amount / core.settings.creditsPerMonth
  return core.accounts.update(name, (cur) => {
    if (!cur) throw ResellerError.notFound('account', name)
    if (cur.seq >= line.seq) return { rec: cur, result: cur }
    const from = Math.max(line.ts, cur.expiresAt)
    const expiresAt = from + Math.round(months * core.settings.daysPerMonth * DAY_MS)
    const next: AccountRecord = { ...cur, expiresAt, months: cur.months + Math.round(months), trial: false, status: cur.status === 'expired' ? 'active' : cur.status, seq: line.seq }
    return { rec: next, result: next }
  })
}

/** The tail of a delete once the panel user is gone: the refund line (once), then the record. */
export async function finishDelete (core: ResellerCore, name: string): Promise<void> {
  const a = core.accounts.get(name)
  if (a?.pending?.op !== 'delete') return
  const { refund: amount, by } = a.pending
  if (amount > 0) {
    await core.ledger.append(() => ({ type: 'REFUND', actor: by, principal: a.owner, amount, account: name, ref: `delete:${name}:${a.createdAt}`, note: `${name} deleted: ${amount / core.settings.creditsPerMonth} month(s) left` }))
  }
  await core.accounts.remove(name)
}

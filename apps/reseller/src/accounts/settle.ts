import type { ResellerCore } from '../core.js'
import type { LedgerLine } from '../ledger/line.js'
import { applyRenew, finishDelete } from './apply.js'
import { deletePanelUser, findPanelUser } from './panel-user.js'

/**
 * Settling operations a crash cut short (the ledger line is each one's commit point):
 * - a RENEW line the account record has not taken yet is applied (the months were paid);
 * - a pending delete is finished (panel user removed, refund written once, record dropped);
 * - a pending activation is finished when it was paid (or is a trial) and the panel has the
 *   user; refunded and dropped when the panel does not; dropped when nothing was paid (the
 *   panel is left alone: its user, if any, is not ours); a failed one that may have left a
 *   panel user (cleanup) has that user removed.
 * A settle that cannot reach the panel leaves the account pending for the next reconcile.
 * Call {@link settleLocked} in the account's turn, or {@link settleAccount}.
 */

export type SettleResult = 'none' | 'settled' | 'open'

export function settleAccount (core: ResellerCore, name: string): Promise<SettleResult> {
  return core.accountLock.run(name, () => settleLocked(core, name))
}

const refunded = (core: ResellerCore, debit: LedgerLine) => core.ledger.byRef(`refund:${debit.seq}`) !== undefined

async function refundOnce (core: ResellerCore, debit: LedgerLine, why: string): Promise<void> {
  await core.ledger.append(() => ({ type: 'REFUND', actor: debit.actor, principal: debit.principal, amount: -debit.amount, account: debit.account!, ref: `refund:${debit.seq}`, note: `refund of #${debit.seq}: ${why}` }))
}

/** Applies the RENEW lines the account record has not taken yet (local: no panel needed). */
async function renewsLocked (core: ResellerCore, name: string): Promise<boolean> {
  const a = core.accounts.get(name)
  if (!a) return false
  let applied = false
  for (const line of core.ledger.accountLines(name, a.seq)) {
    if (line.type !== 'RENEW' || refunded(core, line) || a.pending?.op === 'activate') continue
    await applyRenew(core, name, line)
    core.log.warn({ event: 'account.settled', account: name, seq: line.seq, op: 'renew' }, 'an interrupted renew was applied')
    applied = true
  }
  return applied
}

export async function settleLocked (core: ResellerCore, name: string): Promise<SettleResult> {
  if (core.accounts.get(name) === undefined) return 'none'
  const result: SettleResult = (await renewsLocked(core, name)) ? 'settled' : 'none'
  const a = core.accounts.get(name)!
  const p = a.pending
  if (p === null) return result
  try {
    if (p.op === 'delete') {
      await deletePanelUser(core, name)
      await finishDelete(core, name)
    } else {
      const lines = core.ledger.accountLines(name, p.after)
      const paid = lines.filter((l) => l.type === 'ACTIVATE').pop()
      const paidOpen = paid !== undefined && !refunded(core, paid)
      const trialLine = lines.find((l) => l.type === 'TRIAL')
      const exists = (await findPanelUser(core, name)) !== null
      if (p.cleanup) {
        if (paidOpen) await refundOnce(core, paid, 'activation failed')
        if (exists) await deletePanelUser(core, name)
        await core.accounts.remove(name)
      } else if (a.trial ? trialLine !== undefined && exists : paidOpen && exists) {
        const seq = (a.trial ? trialLine : paid)!.seq
        await core.accounts.update(name, (cur) => ({ rec: cur && { ...cur, pending: null, seq } }))
      } else {
        if (paidOpen) await refundOnce(core, paid, 'activation interrupted; the panel has no such user')
        // A trial is created on the panel before its line: a user there without the line is ours.
        if (a.trial && exists) await deletePanelUser(core, name)
        await core.accounts.remove(name)
      }
    }
  } catch (err) {
    core.log.warn({ event: 'account.settle', account: name, op: p.op, err: (err as Error).message }, 'could not settle an interrupted operation yet')
    return 'open'
  }
  core.log.warn({ event: 'account.settled', account: name, op: p.op }, 'an interrupted operation was settled')
  return 'settled'
}

/** Accounts with a RENEW line their record has not taken yet. */
function unappliedRenews (core: ResellerCore): Set<string> {
  const names = new Set<string>()
  for (const line of core.ledger.lines()) {
    if (line.type !== 'RENEW' || line.account === undefined) continue
    const a = core.accounts.get(line.account)
    if (a && line.seq > a.seq && !refunded(core, line)) names.add(line.account)
  }
  return names
}

/**
 * Applies every RENEW line an account has not taken yet. Local work (the months were paid and
 * the panel's expiry is set by the reconcile), so boot runs it before it serves: no read after
 * a restart shows a paid renew missing.
 */
export async function settleRenews (core: ResellerCore): Promise<number> {
  let applied = 0
  for (const name of unappliedRenews(core)) if (await core.accountLock.run(name, () => renewsLocked(core, name))) applied++
  return applied
}

/** Every account with a pending operation or an unapplied RENEW (boot and each reconcile). */
export async function settleAll (core: ResellerCore): Promise<{ settled: number; open: number }> {
  const names = unappliedRenews(core)
  for (const [name, a] of core.accounts.entries()) if (a.pending !== null) names.add(name)
  let settled = 0
  let open = 0
  for (const name of names) {
    const r = await settleAccount(core, name)
    if (r === 'settled') settled++
    if (r === 'open') open++
  }
  return { settled, open }
}

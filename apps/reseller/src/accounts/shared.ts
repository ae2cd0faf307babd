import { isArusError } from '@arus/service'
import { reachesOwner, type Caller } from '../access.js'
import type { ResellerCore } from '../core.js'
import { ResellerError } from '../errors.js'
import type { LedgerLine } from '../ledger/line.js'
import type { AccountRecord, AccountView } from './model.js'
import { settleLocked } from './settle.js'

/** What the account operations share: the view, the scope check, the settled read, and money helpers. */

export function viewAccount (name: string, a: AccountRecord): AccountView {
  return {
    name,
    owner: a.owner,
    status: a.pending?.op === 'activate' ? 'pending' : a.status,
    trial: a.trial,
    createdAt: a.createdAt,
    expiresAt: a.expiresAt,
    months: a.months,
    packages: a.packages,
    manualGrants: a.manualGrants,
    maxDevices: a.maxDevices,
    suspendedBy: a.suspendedBy
  }
}

/** The account, or 404 when missing and 403 when its owner is outside the caller's subtree. */
export function reachable (core: ResellerCore, caller: Caller, name: string): AccountRecord {
  const a = core.accounts.get(name)
  if (!a) throw ResellerError.notFound('account', name)
  if (!reachesOwner(core, caller, a.owner)) throw ResellerError.forbidden(`account "${name}" belongs outside the caller's subtree`)
  return a
}

/** Like {@link reachable}, and settled (call it in the account's turn): an interrupted operation is settled first; one still open answers 409. */
export async function settled (core: ResellerCore, caller: Caller, name: string): Promise<AccountRecord> {
  let a = reachable(core, caller, name)
  if (a.pending !== null) {
    await settleLocked(core, name).catch(() => {})
    a = reachable(core, caller, name)
    if (a.pending !== null) throw ResellerError.of('RESELLER_ACCOUNT_BUSY', `account "${name}" has an operation in progress (${a.pending.op})`)
  }
  return a
}

export const cost = (core: ResellerCore, months: number) => months * core.settings.creditsPerMonth

/** Refunds a debit line whose panel step failed (idempotent by ref). */
export async function refund (core: ResellerCore, debit: LedgerLine, why: string): Promise<void> {
  await core.ledger.append(() => ({ type: 'REFUND', actor: debit.actor, principal: debit.principal, amount: -debit.amount, account: debit.account!, ref: `refund:${debit.seq}`, note: `refund of #${debit.seq}: ${why}`.slice(0, 500) }))
}

export const panelWhy = (err: unknown) => (isArusError(err) ? err.code : 'error')

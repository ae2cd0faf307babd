import type { z } from 'zod'
import { requireAdminTier, type Caller } from '../access.js'
import { DAY_MS, utcDayStart, type ResellerCore } from '../core.js'
import { ResellerError } from '../errors.js'
import type { LedgerLine } from '../ledger/line.js'
import { effectiveMaxDevices, trialCap } from '../principals/limits.js'
import type { AccountRecord, AccountView, ActivateInput, TrialInput } from './model.js'
import { createPanelUser, deletePanelUser, findPanelUser } from './panel-user.js'
import { settleLocked } from './settle.js'
import { cost, panelWhy, refund, viewAccount } from './shared.js'

/**
 * Making accounts: activation (debit, panel create, or refund) and trials (capped per UTC day).
 * The name is reserved first with a pending record, so a crash between the steps is settled.
 */

/** Reserves the name with a pending record (409 when taken here or on the panel). */
async function reserve (core: ResellerCore, caller: Caller, name: string, rec: Omit<AccountRecord, 'pending' | 'seq' | 'status' | 'suspendedBy' | 'createdAt'>): Promise<void> {
  if (core.accounts.has(name)) {
    await settleLocked(core, name).catch(() => {})
    if (core.accounts.has(name)) throw ResellerError.exists('account', name)
  }
  // A name the panel already has is refused before any credit moves.
  if (await findPanelUser(core, name) !== null) throw new ResellerError('PANEL_USER_EXISTS', `PANEL: user "${name}" already exists on the panel`, 409)
  await core.accounts.update(name, (cur) => {
    if (cur) throw ResellerError.exists('account', name)
    return { rec: { ...rec, createdAt: core.now(), status: 'active', suspendedBy: null, seq: 0, pending: { op: 'activate', at: core.now(), by: caller.name, cleanup: false, after: core.ledger.seq() } } }
  })
}

/** After a failed creation: drop the reservation, or keep it for the settle when a panel user may be left. */
async function release (core: ResellerCore, name: string, outcome: { userMayExist: boolean }): Promise<void> {
  let mayExist = outcome.userMayExist
  if (mayExist) mayExist = await deletePanelUser(core, name).then(() => false, () => true)
  await core.accounts.update(name, (cur) => ({ rec: mayExist && cur?.pending?.op === 'activate' ? { ...cur, pending: { ...cur.pending, cleanup: true } } : undefined }))
}

/** POST /api/accounts: debit months × CREDITS_PER_MONTH, create on the panel, or refund. */
async function activateAccountLocked (core: ResellerCore, caller: Caller, input: z.output<typeof ActivateInput>): Promise<AccountView> {
  if (input.maxDevices !== undefined) requireAdminTier(caller, 'passing maxDevices')
  const price = cost(core, input.months)
  if (core.ledger.balance(caller.name) < price) throw ResellerError.insufficient(core.ledger.balance(caller.name), price)
  const maxDevices = input.maxDevices ?? effectiveMaxDevices(core, caller.name).value
  const now = core.now()
  const base = {
    owner: caller.name, expiresAt: now + input.months * core.settings.daysPerMonth * DAY_MS, months: input.months, trial: false,
    packages: input.packages ?? null, manualGrants: [...new Set(input.grants ?? [])].sort(), maxDevices
  }
  await reserve(core, caller, input.name, base)
  let debit: LedgerLine
  try {
    debit = (await core.ledger.append(() => ({ type: 'ACTIVATE', actor: caller.name, principal: caller.name, amount: -price, account: input.name, note: `activate ${input.months} month(s)` })))!.line
  } catch (err) {
    await core.accounts.remove(input.name)
    throw err
  }
  const outcome = await createPanelUser(core, input.name, input.password, { maxDevices, packages: input.packages, grants: input.grants })
  if (!outcome.ok) {
    await refund(core, debit, panelWhy(outcome.err))
    await release(core, input.name, outcome)
    throw outcome.err
  }
  const rec = await core.accounts.update(input.name, (cur) => {
    const next: AccountRecord = { ...(cur ?? { ...base, createdAt: now, status: 'active', suspendedBy: null }), expiresAt: base.expiresAt, pending: null, seq: debit.seq }
    return { rec: next, result: next }
  })
  core.activity.record({ event: 'account.activated', account: input.name, principal: caller.name, months: input.months }, 'account activated')
  return viewAccount(input.name, rec)
}

/** POST /api/trials: free, TRIAL_HOURS long, at most trialDailyCap per principal per UTC day. */
async function createTrialLocked (core: ResellerCore, caller: Caller, input: z.output<typeof TrialInput>): Promise<AccountView> {
  if (input.maxDevices !== undefined) requireAdminTier(caller, 'passing maxDevices')
  const cap = trialCap(core, caller.name).value
  const overCap = () => core.ledger.trialsSince(caller.name, utcDayStart(core.now())) >= cap
  if (overCap()) throw ResellerError.of('RESELLER_TRIAL_CAP', `${caller.name} used its ${cap} trial(s) for today (UTC)`)
  const maxDevices = input.maxDevices ?? effectiveMaxDevices(core, caller.name).value
  const base = { owner: caller.name, expiresAt: core.now() + core.settings.trialHours * 3_600_000, months: 0, trial: true, packages: null, manualGrants: [], maxDevices }
  await reserve(core, caller, input.name, base)
  const outcome = await createPanelUser(core, input.name, input.password, { maxDevices })
  if (!outcome.ok) {
    await release(core, input.name, outcome)
    throw outcome.err
  }
  let line: LedgerLine
  try {
    // The cap is checked again in the ledger's turn: concurrent trials cannot pass it together.
    line = (await core.ledger.append(() => {
      if (overCap()) throw ResellerError.of('RESELLER_TRIAL_CAP', `${caller.name} used its ${cap} trial(s) for today (UTC)`)
      return { type: 'TRIAL', actor: caller.name, principal: caller.name, amount: 0, account: input.name, note: `trial ${core.settings.trialHours} h` }
    }))!.line
  } catch (err) {
    await release(core, input.name, { userMayExist: true })
    throw err
  }
  const rec = await core.accounts.update(input.name, (cur) => {
    const next: AccountRecord = { ...cur!, pending: null, seq: line.seq }
    return { rec: next, result: next }
  })
  core.activity.record({ event: 'account.trial', account: input.name, principal: caller.name }, 'trial created')
  return viewAccount(input.name, rec)
}


export function activateAccount (core: ResellerCore, caller: Caller, input: z.output<typeof ActivateInput>): Promise<AccountView> {
  return core.accountLock.run(input.name, () => activateAccountLocked(core, caller, input))
}

export function createTrial (core: ResellerCore, caller: Caller, input: z.output<typeof TrialInput>): Promise<AccountView> {
  return core.accountLock.run(input.name, () => createTrialLocked(core, caller, input))
}

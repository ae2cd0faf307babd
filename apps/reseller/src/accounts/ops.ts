import { isAdminTier, requireAdminTier, type Caller } from '../access.js'
import { DAY_MS, type ResellerCore } from '../core.js'
import { ResellerError } from '../errors.js'
import type { AccountRecord, AccountView } from './model.js'
import { applyRenew, finishDelete } from './apply.js'
import { deletePanelUser, findPanelUser, setPanelStatus, userPath } from './panel-user.js'
import { cost, panelWhy, refund, settled, viewAccount } from './shared.js'

/**
 * The account operations (spec 2 "Reseller account", the accounts rows of the endpoint table).
 * Money moves only through the ledger, whose line is each operation's commit point: a debit is
 * fsynced before the panel is called, a panel failure after it is refunded at once, and an
 * operation cut by a crash is settled by the next reconcile (accounts/settle.ts). This module is
 * the door: reads (query.ts) and creation (create.ts) are re-exported here. Imports run one way
 * (ops → create, query → shared → settle → apply → model): nothing under it imports this module,
 * and a principal's with-accounts suspension (owner-status.ts) needs only the panel user.
 */
export { viewAccount } from './shared.js'
export { getAccount, listAccounts } from './query.js'
export { activateAccount, createTrial } from './create.js'

/** Renew: the caller pays; the term runs from the later of now and the expiry; a trial becomes paid; an expired account is enabled again. */
async function renewAccountLocked (core: ResellerCore, caller: Caller, name: string, months: number): Promise<AccountView> {
  await settled(core, caller, name)
  const price = cost(core, months)
  const debit = (await core.ledger.append(() => ({ type: 'RENEW', actor: caller.name, principal: caller.name, amount: -price, account: name, note: `renew ${months} month(s)` })))!.line
  const a = core.accounts.get(name)!
  try {
    // The time sold must exist on the panel: an expired account is enabled again, an active one checked.
    if (a.status === 'expired') await setPanelStatus(core, name, 'active')
    else if (await findPanelUser(core, name) === null) throw new ResellerError('PANEL_USER_NOT_FOUND', `PANEL: user "${name}" does not exist on the panel`, 404)
  } catch (err) {
    await refund(core, debit, panelWhy(err))
    throw err
  }
  const rec = await applyRenew(core, name, debit)
  core.activity.record({ event: 'account.renewed', account: name, principal: caller.name, months }, 'account renewed')
  return viewAccount(name, rec)
}

/** Suspend or resume one account. Resuming an expired one is refused (renew it). */
async function setAccountStatusLocked (core: ResellerCore, caller: Caller, name: string, status: 'active' | 'disabled'): Promise<AccountView> {
  const a = await settled(core, caller, name)
  if (status === 'active' && (a.status === 'expired' || a.expiresAt <= core.now())) throw ResellerError.of('RESELLER_ACCOUNT_EXPIRED', `account "${name}" expired: renew it`)
  await setPanelStatus(core, name, status)
  const rec = await core.accounts.update(name, (cur) => {
    const next: AccountRecord = { ...cur!, status, suspendedBy: null }
    return { rec: next, result: next }
  })
  core.activity.record({ event: 'account.status', account: name, status, principal: caller.name }, 'account status changed')
  return viewAccount(name, rec)
}

async function setAccountPasswordLocked (core: ResellerCore, caller: Caller, name: string, password: string): Promise<AccountView> {
  const a = await settled(core, caller, name)
  await core.panel.call('POST', userPath(name, '/password'), { password })
  core.activity.record({ event: 'account.password', account: name, principal: caller.name }, 'account password set')
  return viewAccount(name, a)
}

async function setAccountMaxDevicesLocked (core: ResellerCore, caller: Caller, name: string, maxDevices: number): Promise<AccountView> {
  requireAdminTier(caller, 'max-devices')
  await settled(core, caller, name)
  await core.panel.call('POST', userPath(name, '/max-devices'), { maxDevices })
  const rec = await core.accounts.update(name, (cur) => { const next = { ...cur!, maxDevices }; return { rec: next, result: next } })
  return viewAccount(name, rec)
}

async function grantStreamLocked (core: ResellerCore, caller: Caller, name: string, streamId: string): Promise<{ changed: boolean; account: AccountView }> {
  await settled(core, caller, name)
  const r = await core.panel.call<{ changed: boolean }>('POST', userPath(name, '/grants'), { streamId })
  const rec = await core.accounts.update(name, (cur) => { const next = { ...cur!, manualGrants: [...new Set([...cur!.manualGrants, streamId])].sort() }; return { rec: next, result: next } })
  return { changed: r.changed, account: viewAccount(name, rec) }
}

/** The reply carries stillGranted: true when a package re-seals the channel. */
async function revokeStreamLocked (core: ResellerCore, caller: Caller, name: string, streamId: string): Promise<{ changed: boolean; stillGranted: boolean; coveredBy: unknown }> {
  await settled(core, caller, name)
  const r = await core.panel.call<{ changed: boolean; stillGranted: boolean; coveredBy: unknown }>('DELETE', userPath(name, `/grants/${encodeURIComponent(streamId)}`))
  await core.accounts.update(name, (cur) => ({ rec: { ...cur!, manualGrants: cur!.manualGrants.filter((g) => g !== streamId) } }))
  return { changed: r.changed, stillGranted: r.stillGranted, coveredBy: r.coveredBy }
}

/** Replaces the panel's packages of the account (no credit impact); the reconcile re-asserts them on drift. */
async function setAccountPackagesLocked (core: ResellerCore, caller: Caller, name: string, packages: string[]): Promise<AccountView> {
  await settled(core, caller, name)
  const list = [...new Set(packages)].sort()
  await core.panel.call('POST', userPath(name, '/packages'), { packages: list })
  const rec = await core.accounts.update(name, (cur) => { const next = { ...cur!, packages: list }; return { rec: next, result: next } })
  return viewAccount(name, rec)
}

async function logoutAllLocked (core: ResellerCore, caller: Caller, name: string): Promise<AccountView> {
  const a = await settled(core, caller, name)
  await core.panel.call('POST', userPath(name, '/logout-all'))
  return viewAccount(name, a)
}

async function listDevicesLocked (core: ResellerCore, caller: Caller, name: string): Promise<{ devices: unknown[] }> {
  await settled(core, caller, name)
  return core.panel.call<{ devices: unknown[] }>('GET', userPath(name, '/devices'))
}

async function removeDeviceLocked (core: ResellerCore, caller: Caller, name: string, id: string): Promise<{ deleted: string }> {
  await settled(core, caller, name)
  return core.panel.call<{ deleted: string }>('DELETE', userPath(name, `/devices/${encodeURIComponent(id)}`))
}

/** DELETE /api/accounts/:acct/devices: drops every enrollment. */
async function removeDevicesLocked (core: ResellerCore, caller: Caller, name: string): Promise<{ deleted: string; devices: number }> {
  const { devices } = await listDevicesLocked(core, caller, name)
  let n = 0
  for (const d of devices as Array<{ id?: unknown; deviceId?: unknown }>) {
    const id = typeof d.deviceId === 'string' ? d.deviceId : typeof d.id === 'string' ? d.id : null
    if (id === null) continue
    await core.panel.call('DELETE', userPath(name, `/devices/${encodeURIComponent(id)}`))
    n++
  }
  return { deleted: name, devices: n }
}

/** Whole remaining months at CREDITS_PER_MONTH; none for trials, expired accounts, or an admin tier's delete. */
export function deleteRefund (core: ResellerCore, caller: Caller, a: AccountRecord): number {
  if (isAdminTier(caller.role) || a.trial || a.status === 'expired') return 0
  const left = a.expiresAt - core.now()
  return left <= 0 ? 0 : Math.floor(left / (core.settings.daysPerMonth * DAY_MS)) * core.settings.creditsPerMonth
}

/** Deletes the panel user, then refunds the owner (unless an admin deletes) and drops the record. */
async function deleteAccountLocked (core: ResellerCore, caller: Caller, name: string): Promise<{ deleted: string; refunded: number }> {
  const a = await settled(core, caller, name)
  const amount = deleteRefund(core, caller, a)
  await core.accounts.update(name, (cur) => ({ rec: { ...cur!, pending: { op: 'delete', at: core.now(), by: caller.name, refund: amount } } }))
  try {
    await deletePanelUser(core, name)
  } catch (err) {
    await core.accounts.update(name, (cur) => ({ rec: cur && { ...cur, pending: null } }))
    throw err
  }
  await finishDelete(core, name)
  core.activity.record({ event: 'account.deleted', account: name, principal: caller.name, refunded: amount }, 'account deleted')
  return { deleted: name, refunded: amount }
}


// --- every operation on one account runs in that account's turn (core.accountLock) ---

export function renewAccount (core: ResellerCore, caller: Caller, name: string, months: number): Promise<AccountView> {
  return core.accountLock.run(name, () => renewAccountLocked(core, caller, name, months))
}

export function setAccountStatus (core: ResellerCore, caller: Caller, name: string, status: 'active' | 'disabled'): Promise<AccountView> {
  return core.accountLock.run(name, () => setAccountStatusLocked(core, caller, name, status))
}

export function setAccountPassword (core: ResellerCore, caller: Caller, name: string, password: string): Promise<AccountView> {
  return core.accountLock.run(name, () => setAccountPasswordLocked(core, caller, name, password))
}

export function setAccountMaxDevices (core: ResellerCore, caller: Caller, name: string, maxDevices: number): Promise<AccountView> {
  return core.accountLock.run(name, () => setAccountMaxDevicesLocked(core, caller, name, maxDevices))
}

export function grantStream (core: ResellerCore, caller: Caller, name: string, streamId: string): Promise<{ changed: boolean; account: AccountView }> {
  return core.accountLock.run(name, () => grantStreamLocked(core, caller, name, streamId))
}

export function revokeStream (core: ResellerCore, caller: Caller, name: string, streamId: string): Promise<{ changed: boolean; stillGranted: boolean; coveredBy: unknown }> {
  return core.accountLock.run(name, () => revokeStreamLocked(core, caller, name, streamId))
}

export function setAccountPackages (core: ResellerCore, caller: Caller, name: string, packages: string[]): Promise<AccountView> {
  return core.accountLock.run(name, () => setAccountPackagesLocked(core, caller, name, packages))
}

export function logoutAll (core: ResellerCore, caller: Caller, name: string): Promise<AccountView> {
  return core.accountLock.run(name, () => logoutAllLocked(core, caller, name))
}

export function listDevices (core: ResellerCore, caller: Caller, name: string): Promise<{ devices: unknown[] }> {
  return core.accountLock.run(name, () => listDevicesLocked(core, caller, name))
}

export function removeDevice (core: ResellerCore, caller: Caller, name: string, id: string): Promise<{ deleted: string }> {
  return core.accountLock.run(name, () => removeDeviceLocked(core, caller, name, id))
}

export function removeDevices (core: ResellerCore, caller: Caller, name: string): Promise<{ deleted: string; devices: number }> {
  return core.accountLock.run(name, () => removeDevicesLocked(core, caller, name))
}

export function deleteAccount (core: ResellerCore, caller: Caller, name: string): Promise<{ deleted: string; refunded: number }> {
  return core.accountLock.run(name, () => deleteAccountLocked(core, caller, name))
}

import type { z } from 'zod'
import { computeVerifier, fromHex, newSalt, toHex } from '@arus/crypto'
import { adminPasswordInput, type AdminVerifier } from '@arus/service'
import { CREATABLE, isAdminTier, principalInScope, requireAdminTier, seesPrincipal, type Caller } from '../access.js'
import { utcDayStart, type ResellerCore } from '../core.js'
import { ResellerError } from '../errors.js'
import { setOwnersAccountsStatus } from '../accounts/owner-status.js'
import { effectiveMaxDevices, effectiveStatus, trialCap } from './limits.js'
import type { CreatePrincipalInput, PrincipalRecord, PrincipalView, SetLimitsInput, SetStatusInput } from './model.js'
import { Password, PrincipalName } from './model.js'

/**
 * The principal operations (spec 2 "Reseller" principals rows); HTTP, the CLI and the tool server
 * call these. They sit above the accounts (a with-accounts suspension walks them:
 * accounts/owner-status.ts); the accounts read a principal's limits from limits.ts, never from
 * here, so imports run one way.
 */

async function newVerifier (core: ResellerCore, password: string): Promise<Pick<PrincipalRecord, 'salt' | 'verifier' | 'argon'>> {
  const salt = newSalt()
  const argon = { ...core.settings.argon }
  return { salt: toHex(salt), verifier: toHex(await computeVerifier(adminPasswordInput(password), salt, argon)), argon }
}

export function viewPrincipal (core: ResellerCore, name: string): PrincipalView {
  const r = core.principals.get(name)
  if (!r) throw ResellerError.notFound('principal', name)
  const max = effectiveMaxDevices(core, name)
  const cap = trialCap(core, name)
  return {
    username: name,
    role: r.role,
    parent: r.parent,
    status: r.status,
    effectiveStatus: effectiveStatus(core, name),
    balance: core.ledger.balance(name),
    maxDevicesLimit: max.value,
    maxDevicesLimitInherited: max.inherited,
    trialDailyCap: cap.value,
    trialDailyCapInherited: cap.inherited,
    note: r.note,
    children: core.principals.children(name).length,
    accounts: core.accounts.countOwnedBy(name),
    createdAt: r.createdAt
  }
}

/** GET /api/me: the caller's own record, balance and trials used today. */
export function me (core: ResellerCore, caller: Caller): PrincipalView & { trialsToday: number } {
  return { ...viewPrincipal(core, caller.name), trialsToday: core.ledger.trialsSince(caller.name, utcDayStart(core.now())) }
}

export function listPrincipals (core: ResellerCore, caller: Caller): { principals: PrincipalView[] } {
  return { principals: core.principals.names().filter((n) => seesPrincipal(core, caller, n)).map((n) => viewPrincipal(core, n)) }
}

export function getPrincipal (core: ResellerCore, caller: Caller, name: string): PrincipalView {
  principalInScope(core, caller, name, false)
  return viewPrincipal(core, name)
}

export async function createPrincipal (core: ResellerCore, caller: Caller, input: z.output<typeof CreatePrincipalInput>): Promise<PrincipalView> {
  if (!CREATABLE[caller.role].includes(input.role)) throw ResellerError.forbidden(`a ${caller.role} cannot create a ${input.role}`)
  if (input.maxDevicesLimit !== undefined && input.maxDevicesLimit !== null && !isAdminTier(caller.role)) throw ResellerError.forbidden('only admin tiers set maxDevicesLimit')
  if (core.principals.has(input.username)) throw ResellerError.exists('principal', input.username)
  const v = await newVerifier(core, input.password)
  await core.principals.update(input.username, (cur) => {
    if (cur) throw ResellerError.exists('principal', input.username)
    return {
      rec: {
        role: input.role,
        parent: caller.name,
        ...v,
        tokenVersion: 0,
        maxDevicesLimit: input.maxDevicesLimit ?? null,
        trialDailyCap: input.trialDailyCap ?? null,
        note: input.note ?? '',
        status: 'active',
        createdAt: core.now()
      }
    }
  })
  core.activity.record({ event: 'principal.created', principal: input.username, role: input.role }, 'principal created')
  return viewPrincipal(core, input.username)
}

/** Seeds the root admin (CLI, daemon stopped): refused when one exists. */
export async function seedRootAdmin (core: ResellerCore, username: string, password: string): Promise<PrincipalView> {
  PrincipalName.parse(username)
  Password.parse(password)
  const root = core.principals.entries().find(([, r]) => r.role === 'admin')
  if (root) throw ResellerError.exists('root admin', root[0])
  if (core.principals.has(username)) throw ResellerError.exists('principal', username)
  const v = await newVerifier(core, password)
  await core.principals.put(username, { role: 'admin', parent: null, ...v, tokenVersion: 0, maxDevicesLimit: null, trialDailyCap: null, note: 'root admin', status: 'active', createdAt: core.now() })
  core.activity.record({ event: 'principal.created', principal: username, role: 'admin', actor: 'cli' }, 'root admin seeded')
  return viewPrincipal(core, username)
}

/** Rotates `name`'s password and ends its sessions (no scope check: the CLI's recovery path and the two routes below). */
export async function rotatePassword (core: ResellerCore, name: string, password: string): Promise<PrincipalView> {
  const v = await newVerifier(core, Password.parse(password))
  await core.principals.update(name, (cur) => {
    if (!cur) throw ResellerError.notFound('principal', name)
    return { rec: { ...cur, ...v, tokenVersion: cur.tokenVersion + 1 } }
  })
  core.activity.record({ event: 'principal.password', principal: name }, 'principal password rotated')
  return viewPrincipal(core, name)
}

/** POST /api/me/password: one's own (ends one's own sessions). */
export function setOwnPassword (core: ResellerCore, caller: Caller, password: string): Promise<PrincipalView> {
  return rotatePassword(core, caller.name, password)
}

/** POST /api/principals/:name/password: a principal the caller manages (its own goes through /api/me/password). */
export function setPrincipalPassword (core: ResellerCore, caller: Caller, name: string, password: string): Promise<PrincipalView> {
  principalInScope(core, caller, name, true)
  return rotatePassword(core, name, password)
}

/**
 * Suspends or resumes a principal. Its sign-in (and its subtree's) follows at once; with
 * `with-accounts` every account of its subtree is disabled on the panel too, and a resume
 * with-accounts re-enables exactly those.
 */
export async function setPrincipalStatus (core: ResellerCore, caller: Caller, name: string, input: z.output<typeof SetStatusInput>): Promise<PrincipalView & { accountsChanged: number; accountsFailed: string[] }> {
  principalInScope(core, caller, name, true)
  await core.principals.update(name, (cur) => {
    if (!cur) throw ResellerError.notFound('principal', name)
    return { rec: { ...cur, status: input.status, tokenVersion: input.status === 'disabled' ? cur.tokenVersion + 1 : cur.tokenVersion } }
  })
  let changed = 0
  let failed: string[] = []
  if (input.mode === 'with-accounts') ({ changed, failed } = await setOwnersAccountsStatus(core, name, input.status))
  core.activity.record({ event: 'principal.status', principal: name, status: input.status, mode: input.mode }, 'principal status changed')
  return { ...viewPrincipal(core, name), accountsChanged: changed, accountsFailed: failed }
}

/** Only admin tiers set maxDevicesLimit; supers may tune trialDailyCap only. */
export async function setPrincipalLimits (core: ResellerCore, caller: Caller, name: string, input: z.output<typeof SetLimitsInput>): Promise<PrincipalView> {
  principalInScope(core, caller, name, true)
  if (input.maxDevicesLimit !== undefined) requireAdminTier(caller, 'setting maxDevicesLimit')
  await core.principals.update(name, (cur) => {
    if (!cur) throw ResellerError.notFound('principal', name)
    return {
      rec: {
        ...cur,
        ...(input.maxDevicesLimit !== undefined ? { maxDevicesLimit: input.maxDevicesLimit } : {}),
        ...(input.trialDailyCap !== undefined ? { trialDailyCap: input.trialDailyCap } : {})
      }
    }
  })
  core.activity.record({ event: 'principal.limits', principal: name }, 'principal limits changed')
  return viewPrincipal(core, name)
}

/** Refused while it has children or accounts; its remaining balance is reclaimed to the caller first. */
export async function deletePrincipal (core: ResellerCore, caller: Caller, name: string): Promise<{ deleted: string; reclaimed: number }> {
  principalInScope(core, caller, name, true)
  const children = core.principals.children(name).length
  const accounts = core.accounts.countOwnedBy(name)
  if (children > 0 || accounts > 0) throw ResellerError.of('RESELLER_IN_USE', `principal "${name}" still has ${children} principal(s) and ${accounts} account(s): move or delete them first`)
  if (core.principals.deleting.has(name)) throw ResellerError.of('RESELLER_IN_USE', `principal "${name}" is being deleted`)
  core.principals.deleting.add(name)
  let appended
  try {
    appended = await core.ledger.append((l) => {
      const balance = l.balance(name)
      return balance > 0 ? { type: 'RECLAIM', actor: caller.name, principal: name, counterparty: caller.name, amount: -balance, note: `principal ${name} deleted` } : null
    })
    await core.principals.remove(name)
  } finally {
    core.principals.deleting.delete(name)
  }
  core.activity.record({ event: 'principal.deleted', principal: name }, 'principal deleted')
  return { deleted: name, reclaimed: appended ? -appended.line.amount : 0 }
}

/** The auth gate's check: the tokenVersion, or null when gone or disabled (itself or up the chain). */
export function currentTokenVersion (core: ResellerCore, name: string): number | null {
  const r = core.principals.get(name)
  if (!r || effectiveStatus(core, name) === 'disabled') return null
  return r.tokenVersion
}

/** The login's verify job, or null for an unknown or disabled principal (a decoy runs: no name oracle). */
export function verifierInput (core: ResellerCore, name: string, password: string): AdminVerifier | null {
  const r = core.principals.get(name)
  if (!r || effectiveStatus(core, name) === 'disabled') return null
  return { input: adminPasswordInput(password), salt: fromHex(r.salt, 16), cost: r.argon, verifier: fromHex(r.verifier, 32), tokenVersion: r.tokenVersion }
}

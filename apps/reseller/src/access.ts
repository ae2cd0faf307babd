import { ResellerError } from './errors.js'
import type { ResellerCore } from './core.js'
import type { Role } from './principals/model.js'
import type { LedgerLine } from './ledger/line.js'

/**
 * Who may do what (spec 2 "Reseller resources", "Reseller" endpoints, Errors 403): roles high to
 * low admin (root) > co-admin > super > reseller; "admin tiers" are admin and co-admin. A
 * principal's parent is its creator. Admin tiers see everyone; a super sees itself and its
 * subtree; a reseller itself. Denials are 403 RESELLER_FORBIDDEN (docs/reseller.md has the table).
 */

export interface Caller { name: string; role: Role }

export const isAdminTier = (role: Role): boolean => role === 'admin' || role === 'co-admin'

/** Roles each role may create (the root admin is seeded by the CLI, never created here). */
export const CREATABLE: Record<Role, readonly Role[]> = {
  admin: ['co-admin', 'super', 'reseller'],
  'co-admin': ['super', 'reseller'],
  super: ['reseller'],
  reseller: []
}

export function requireAdminTier (caller: Caller, what: string): void {
  if (!isAdminTier(caller.role)) throw ResellerError.forbidden(`${what} is for admin tiers (admin, co-admin) only`)
}

/** The caller's principal record (the auth gate has checked it exists and is enabled). */
export function callerOf (core: ResellerCore, name: string): Caller {
  const rec = core.principals.get(name)
  if (!rec) throw ResellerError.forbidden('the session\'s principal no longer exists')
  return { name, role: rec.role }
}

/** True when the caller may see `target` (itself, its subtree, or anyone for admin tiers). */
export function seesPrincipal (core: ResellerCore, caller: Caller, target: string): boolean {
  return isAdminTier(caller.role) || core.principals.isWithin(target, caller.name)
}

/**
 * True when the caller may change `target` (password, status, limits, delete, reclaim): never
 * itself or the root admin; co-admins are managed by the root admin alone; admin tiers manage
 * every super and reseller; a super manages its subtree.
 */
export function managesPrincipal (core: ResellerCore, caller: Caller, target: string): boolean {
  if (target === caller.name) return false
  const rec = core.principals.get(target)
  if (!rec || rec.role === 'admin') return false
  if (rec.role === 'co-admin') return caller.role === 'admin'
  if (isAdminTier(caller.role)) return true
  return caller.role === 'super' && core.principals.isWithin(target, caller.name)
}

/** The target principal, or 404 when missing and 403 when out of the caller's scope. */
export function principalInScope (core: ResellerCore, caller: Caller, target: string, manage: boolean): void {
  if (!core.principals.has(target)) throw ResellerError.notFound('principal', target)
  const ok = manage ? managesPrincipal(core, caller, target) : seesPrincipal(core, caller, target)
  if (!ok) throw ResellerError.forbidden(manage ? `principal "${target}" is not one the caller manages` : `principal "${target}" is outside the caller's subtree`)
}

/** True when the caller may see and act on accounts owned by `owner`. */
export function reachesOwner (core: ResellerCore, caller: Caller, owner: string): boolean {
  return isAdminTier(caller.role) || core.principals.isWithin(owner, caller.name)
}

/** A ledger line is visible when one of its principals is in the caller's scope. */
export function seesLine (core: ResellerCore, caller: Caller): (line: LedgerLine) => boolean {
  if (isAdminTier(caller.role)) return () => true
  const mine = new Set(core.principals.subtree(caller.name))
  return (l) => mine.has(l.principal) || (l.counterparty !== undefined && mine.has(l.counterparty))
}

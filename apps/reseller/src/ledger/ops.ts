import { z } from 'zod'
import { isAdminTier, managesPrincipal, requireAdminTier, seesLine, seesPrincipal, type Caller } from '../access.js'
import type { ResellerCore } from '../core.js'
import { ResellerError } from '../errors.js'
import { PrincipalName } from '../principals/model.js'
import { LedgerLine, LedgerType } from './line.js'

/** The credit operations (spec 2 "POST /api/credits/mint, /transfer, /reclaim, /adjust", "GET /api/ledger"). */

const Amount = z.number().int().min(1).max(1_000_000_000).describe('Whole credits')
const Note = z.string().max(500)

export const MintInput = z.strictObject({ to: PrincipalName.optional().describe('Default: the caller'), amount: Amount, note: Note.optional() })
export const TransferInput = z.strictObject({ to: PrincipalName, amount: Amount, note: Note.optional() })
export const ReclaimInput = z.strictObject({ from: PrincipalName, amount: Amount, note: Note.optional() })
export const AdjustInput = z.strictObject({
  principal: PrincipalName,
  amount: z.number().int().min(-1_000_000_000).max(1_000_000_000).refine((n) => n !== 0, 'must not be 0').describe('Signed correction'),
  note: z.string().trim().min(1, 'adjust requires a note').max(500)
})
export const LedgerQueryInput = z.strictObject({
  principal: PrincipalName.optional(),
  account: z.string().max(64).optional(),
  type: LedgerType.optional(),
  before: z.coerce.number().int().min(1).optional().describe('seq cursor: lines older than this'),
  limit: z.coerce.number().int().min(1).max(500).default(100)
})
export const CreditReply = z.object({ line: LedgerLine, balance: z.number().int().describe('The caller\'s balance after the operation') })
/** A line as a caller sees it: balances of principals outside its scope are null. */
export const LedgerLineView = LedgerLine.extend({ balance: z.number().int().nullable(), counterpartyBalance: z.number().int().nullable().optional() })
export const LedgerReply = z.object({ lines: z.array(LedgerLineView), next: z.number().int().nullable() })

function target (core: ResellerCore, name: string): void {
  if (!core.principals.creditable(name)) throw ResellerError.notFound('principal', name)
}

/** Mint is admin tiers only: credits made for `to` (default the caller). */
export async function mint (core: ResellerCore, caller: Caller, input: z.output<typeof MintInput>): Promise<z.input<typeof CreditReply>> {
  requireAdminTier(caller, 'mint')
  const to = input.to ?? caller.name
  target(core, to)
  const r = (await core.ledger.append(() => {
    target(core, to)
    return { type: 'MINT', actor: caller.name, principal: to, amount: input.amount, note: input.note ?? '' }
  }))!
  core.activity.record({ event: 'credits.mint', principal: to, amount: input.amount }, 'credits minted')
  return { line: r.line, balance: core.ledger.balance(caller.name) }
}

/** Caller → a principal it sees below it (admin tiers: anyone). */
export async function transfer (core: ResellerCore, caller: Caller, input: z.output<typeof TransferInput>): Promise<z.input<typeof CreditReply>> {
  target(core, input.to)
  if (input.to === caller.name) throw ResellerError.invalid('to: cannot transfer to yourself')
  if (!seesPrincipal(core, caller, input.to)) throw ResellerError.forbidden(`principal "${input.to}" is outside the caller's subtree`)
  const r = (await core.ledger.append(() => {
    target(core, input.to)
    return { type: 'TRANSFER', actor: caller.name, principal: input.to, counterparty: caller.name, amount: input.amount, note: input.note ?? '' }
  }))!
  core.activity.record({ event: 'credits.transfer', principal: input.to, amount: input.amount }, 'credits transferred')
  return { line: r.line, balance: core.ledger.balance(caller.name) }
}

/** Takes credits back from a principal the caller manages; 402 beyond its balance. */
export async function reclaim (core: ResellerCore, caller: Caller, input: z.output<typeof ReclaimInput>): Promise<z.input<typeof CreditReply>> {
  target(core, input.from)
  if (!managesPrincipal(core, caller, input.from)) throw ResellerError.forbidden(`principal "${input.from}" is not one the caller manages`)
  const r = (await core.ledger.append(() => {
    target(core, input.from)
    return { type: 'RECLAIM', actor: caller.name, principal: input.from, counterparty: caller.name, amount: -input.amount, note: input.note ?? '' }
  }))!
  core.activity.record({ event: 'credits.reclaim', principal: input.from, amount: input.amount }, 'credits reclaimed')
  return { line: r.line, balance: core.ledger.balance(caller.name) }
}

/** A signed correction with a note (admin tiers only); it cannot take a balance below 0 (402). */
export async function adjust (core: ResellerCore, caller: Caller, input: z.output<typeof AdjustInput>): Promise<z.input<typeof CreditReply>> {
  requireAdminTier(caller, 'adjust')
  target(core, input.principal)
  const r = (await core.ledger.append(() => {
    target(core, input.principal)
    return { type: 'ADJUST', actor: caller.name, principal: input.principal, amount: input.amount, note: input.note }
  }))!
  core.activity.record({ event: 'credits.adjust', principal: input.principal, amount: input.amount }, 'credits adjusted')
  return { line: r.line, balance: core.ledger.balance(caller.name) }
}

/** Newest first; non-admins see only lines of themselves and their subtree. */
export function queryLedger (core: ResellerCore, caller: Caller, q: z.output<typeof LedgerQueryInput>): z.input<typeof LedgerReply> {
  if (q.principal !== undefined && !isAdminTier(caller.role) && !seesPrincipal(core, caller, q.principal)) throw ResellerError.forbidden(`principal "${q.principal}" is outside the caller's subtree`)
  // One line more than asked tells whether an older page exists.
  const lines = core.ledger.query({ ...q, limit: q.limit + 1, visible: seesLine(core, caller) })
  const more = lines.length > q.limit
  if (more) lines.pop()
  const next = more ? lines[lines.length - 1]!.seq : null
  if (isAdminTier(caller.role)) return { lines, next }
  const mine = new Set(core.principals.subtree(caller.name))
  return {
    lines: lines.map((l) => ({
      ...l,
      balance: mine.has(l.principal) ? l.balance : null,
      ...(l.counterparty !== undefined ? { counterpartyBalance: mine.has(l.counterparty) ? l.counterpartyBalance : null } : {})
    })),
    next
  }
}

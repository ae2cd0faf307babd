import { z } from 'zod'

/**
 * One ledger line (spec 2 "Reseller resources": seq, actor, principal, type, amount, new
 * balance, note). `amount` applies to `principal`; a two-party move (TRANSFER, RECLAIM) also
 * names the `counterparty`, which gets −amount, so one line is one operation and a torn write
 * can never leave half a transfer. Credits are whole numbers.
 *
 * - MINT: credits made for `principal` (actor: a principal, or `webhook` for a top-up; ref `webhook:<id>`).
 * - ADJUST: an admin correction, ± amount, note required (counts as minted, signed).
 * - TRANSFER: `counterparty` → `principal` (amount > 0).
 * - RECLAIM: `principal` → `counterparty` (amount < 0: taken from `principal`).
 * - ACTIVATE, RENEW: `principal` pays for `account` (amount < 0: consumed).
 * - REFUND: credits back to `principal` for `account` (a failed panel call: ref `refund:<seq>`; a delete: remaining months).
 * - TRIAL: a free trial `account` made by `principal` (amount 0; the daily cap counts these).
 */
export const LEDGER_TYPES = ['MINT', 'ADJUST', 'TRANSFER', 'RECLAIM', 'ACTIVATE', 'RENEW', 'REFUND', 'TRIAL'] as const
export const LedgerType = z.enum(LEDGER_TYPES)
export type LedgerType = z.infer<typeof LedgerType>

const Credits = z.number().int().min(-1e12).max(1e12)
const Balance = z.number().int().min(0)

export const LedgerLine = z.strictObject({
  seq: z.number().int().min(1),
  ts: z.number().int().min(0),
  actor: z.string().min(1).max(64),
  type: LedgerType,
  principal: z.string().min(1).max(64),
  amount: Credits,
  balance: Balance,
  counterparty: z.string().min(1).max(64).optional(),
  counterpartyBalance: Balance.optional(),
  account: z.string().min(1).max(64).optional(),
  ref: z.string().min(1).max(200).optional(),
  note: z.string().max(500)
})
export type LedgerLine = z.infer<typeof LedgerLine>

/** What an operation asks to append; seq, ts and balances are the ledger's. */
export type LedgerDraft = Omit<LedgerLine, 'seq' | 'ts' | 'balance' | 'counterpartyBalance'>

/** How a type moves the totals: minted (MINT, ADJUST) and consumed (ACTIVATE, RENEW minus REFUND). */
export function totalsDelta (line: Pick<LedgerLine, 'type' | 'amount'>): { minted: number; consumed: number } {
  switch (line.type) {
    case 'MINT':
    case 'ADJUST': return { minted: line.amount, consumed: 0 }
    case 'ACTIVATE':
    case 'RENEW':
    case 'REFUND': return { minted: 0, consumed: -line.amount }
    default: return { minted: 0, consumed: 0 }
  }
}

/** Sign rules per type: a line that breaks them is refused when written and reported when read. */
export function lineShapeProblem (d: Pick<LedgerLine, 'type' | 'amount' | 'counterparty' | 'account' | 'note'>): string | null {
  const two = d.type === 'TRANSFER' || d.type === 'RECLAIM'
  if (two !== (d.counterparty !== undefined)) return two ? `${d.type} needs a counterparty` : `${d.type} has no counterparty`
  const forAccount = d.type === 'ACTIVATE' || d.type === 'RENEW' || d.type === 'REFUND' || d.type === 'TRIAL'
  if (forAccount && d.account === undefined) return `${d.type} needs an account`
  switch (d.type) {
    case 'MINT':
    case 'TRANSFER':
    case 'REFUND': return d.amount > 0 ? null : `${d.type} amount must be positive`
    case 'RECLAIM':
    case 'ACTIVATE':
    case 'RENEW': return d.amount < 0 ? null : `${d.type} amount must be negative`
    case 'ADJUST': return d.amount === 0 ? 'ADJUST amount must not be 0' : d.note.trim() === '' ? 'ADJUST needs a note' : null
    case 'TRIAL': return d.amount === 0 ? null : 'TRIAL amount must be 0'
  }
}

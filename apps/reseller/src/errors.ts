import { ArusError, type ErrorTable } from '@arus/service'

/** Reseller error codes: stable strings callers match on, their HTTP status and meaning (docs/errors.md lists them). */
export const RESELLER_ERROR_CODES = {
  RESELLER_FORBIDDEN: { status: 403, meaning: 'the caller\'s role or place in the tree does not allow this (capability or scope denial)' },
  RESELLER_ADDRESS_DENIED: { status: 403, meaning: 'the client address is not in CLIENT_ALLOWLIST' },
  RESELLER_INSUFFICIENT_CREDITS: { status: 402, meaning: 'a debit exceeds the balance (nothing was written)' },
  RESELLER_INVALID_INPUT: { status: 400, meaning: 'a field failed validation; the message names the field' },
  RESELLER_NOT_FOUND: { status: 404, meaning: 'the named principal or account does not exist (one outside the caller\'s scope is 403)' },
  RESELLER_EXISTS: { status: 409, meaning: 'a principal or account with that name already exists' },
  RESELLER_IN_USE: { status: 409, meaning: 'a principal with children or accounts cannot be deleted' },
  RESELLER_ACCOUNT_EXPIRED: { status: 409, meaning: 'the account has expired: renew it instead of enabling it' },
  RESELLER_ACCOUNT_BUSY: { status: 409, meaning: 'the account has an operation in progress (an interrupted one is settled by the next reconcile)' },
  RESELLER_TRIAL_CAP: { status: 429, meaning: 'the principal reached its trials for today (trialDailyCap, UTC day)' },
  RESELLER_PANEL_UNREACHABLE: { status: 502, meaning: 'PANEL: the panel admin API did not answer (or PANEL_ADMIN_PASS is unset); any debit was refunded' },
  RESELLER_PANEL_FAILED: { status: 502, meaning: 'PANEL: the panel refused or failed the call; its message follows the prefix and any debit was refunded (its 400, 404 and 409 keep their status and code)' },
  RESELLER_WEBHOOK_DISABLED: { status: 404, meaning: 'the top-up webhook is off (WEBHOOK_SECRET is unset)' },
  RESELLER_WEBHOOK_SIGNATURE: { status: 401, meaning: 'x-topup-signature does not match the body and timestamp' },
  RESELLER_WEBHOOK_STALE: { status: 401, meaning: 'x-topup-timestamp is missing or more than 300 seconds away from now' },
  RESELLER_LEDGER_CORRUPT: { status: 500, meaning: 'a ledger line other than the last is not valid, or the balances do not add up: boot refuses (the message names the line)' },
  RESELLER_ELOCKED: { status: 503, meaning: 'a one-shot command would write what the running reseller holds: use the API, or stop the daemon first' },
  RESELLER_CLOSED: { status: 503, meaning: 'the reseller is shutting down' }
} as const satisfies ErrorTable

export type ResellerErrorCode = keyof typeof RESELLER_ERROR_CODES

export class ResellerError extends ArusError {
  constructor (code: ResellerErrorCode | string, message: string, status: number = (RESELLER_ERROR_CODES as Record<string, { status: number }>)[code]?.status ?? 502) {
    super(code, message, { status })
    this.name = 'ResellerError'
  }

  static of (code: ResellerErrorCode, message: string = RESELLER_ERROR_CODES[code].meaning): ResellerError { return new ResellerError(code, message) }
  static forbidden (message: string): ResellerError { return ResellerError.of('RESELLER_FORBIDDEN', message) }
  static addressDenied (): ResellerError { return ResellerError.of('RESELLER_ADDRESS_DENIED', 'this client address is not allowed (CLIENT_ALLOWLIST)') }
  static invalid (message: string): ResellerError { return ResellerError.of('RESELLER_INVALID_INPUT', message) }
  static notFound (what: string, name: string): ResellerError { return ResellerError.of('RESELLER_NOT_FOUND', `${what} "${name}" not found`) }
  static exists (what: string, name: string): ResellerError { return ResellerError.of('RESELLER_EXISTS', `${what} "${name}" already exists`) }
  static insufficient (balance: number, needed: number): ResellerError {
    return ResellerError.of('RESELLER_INSUFFICIENT_CREDITS', `insufficient credits: balance ${balance}, needed ${needed}`)
  }

  /** A panel error: its 400, 404 and 409 keep status and code (passed through), others are 502; the message gets the 'PANEL:' prefix. */
  static panel (status: number, code: string, message: string): ResellerError {
    const text = `PANEL: ${message}`
    if (status === 400 || status === 404 || status === 409) return new ResellerError(code, text, status)
    return new ResellerError('RESELLER_PANEL_FAILED', text, 502)
  }
}

import { ArusError, type ErrorTable } from '@arus/service'

/** Panel error codes: stable strings callers match on, their HTTP status and meaning (docs/errors.md lists them). */
export const PANEL_ERROR_CODES = {
  PANEL_NOT_INITIALIZED: { status: 500, meaning: 'no panel identity under DATA_DIR: run `arus-panel init` first' },
  PANEL_ALREADY_INITIALIZED: { status: 409, meaning: 'init refused: a panel identity already exists under DATA_DIR' },
  PANEL_ELOCKED: { status: 503, meaning: 'the store is in use by a running panel (ELOCKED); stop it first' },
  PANEL_NOT_FOUND: { status: 404, meaning: 'the named user, stream, publisher, admin or device does not exist' },
  PANEL_EXISTS: { status: 409, meaning: 'a user, stream, publisher or admin with that name already exists' },
  PANEL_INVALID_INPUT: { status: 400, meaning: 'an argument failed validation; the message names the field' },
  PANEL_NO_STREAM_KEY: { status: 409, meaning: 'the stream has no key on this panel (it was never added or registered)' },
  PANEL_ESCROW_MISMATCH: { status: 400, meaning: 'the escrow file decrypted but its content is not a valid identity for its fingerprint' },
  PANEL_ESCROW_UNREADABLE: { status: 400, meaning: 'the escrow file is not JSON' },
  PANEL_ESCROW_WRONG_PASSWORD: { status: 403, meaning: 'POST /api/identity/escrow: the password is not the calling admin\'s (the attempt counts)' },
  PANEL_ESCROW_THROTTLED: { status: 429, meaning: 'POST /api/identity/escrow: 3 attempts in the last hour, panel-wide; the body carries retryAfter (seconds, also a Retry-After header)' },
  PANEL_SOURCE_SYNC: { status: 502, meaning: 'a remote source could not be synced (pull failed, oversize, too many entries, unreadable feed, or any other failure during the sync); the last good state stays, the source shows the error as lastError and is retried with backoff' },
  PANEL_RESTORE_TARGET: { status: 400, meaning: 'the --restore-to directory must be empty or absent' },
  PANEL_EPG_INCOMPLETE: { status: 400, meaning: 'a stream edit gave one half of the EPG pair (epgUrl, epgId) for a record that lacks the other; the message names the missing half (give both, or an empty value to clear the pair)' }
} as const satisfies ErrorTable

export type PanelErrorCode = keyof typeof PANEL_ERROR_CODES

export class PanelError extends ArusError {
  declare readonly code: PanelErrorCode
  constructor (code: PanelErrorCode, message: string = PANEL_ERROR_CODES[code].meaning, init: { details?: Record<string, unknown> } = {}) {
    super(code, message, { ...init, status: PANEL_ERROR_CODES[code].status })
    this.name = 'PanelError'
  }

  static notFound (what: string): PanelError { return new PanelError('PANEL_NOT_FOUND', `${what} not found`) }
  static exists (what: string): PanelError { return new PanelError('PANEL_EXISTS', `${what} already exists`) }
  static invalid (message: string): PanelError { return new PanelError('PANEL_INVALID_INPUT', message) }
  /** `missing` is the half of the EPG pair neither the edit nor the record holds; it is also `details.missing`. */
  static epgIncomplete (missing: 'epgUrl' | 'epgId'): PanelError {
    const given = missing === 'epgUrl' ? 'epgId' : 'epgUrl'
    return new PanelError('PANEL_EPG_INCOMPLETE', `${missing} is missing: the stream has no ${missing}, so ${given} alone cannot be set (give both, or an empty value to clear the pair)`, { details: { missing } })
  }
  /** `retryAfter` (whole seconds) goes to `details.retryAfter`: the HTTP layer adds it to the body and a Retry-After header. */
  static escrowThrottled (retryAfter: number): PanelError {
    return new PanelError('PANEL_ESCROW_THROTTLED', `too many escrow attempts; retry after ${retryAfter} s`, { details: { retryAfter } })
  }
}

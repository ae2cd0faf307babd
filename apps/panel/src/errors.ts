import { ArusError } from '@arus/service'

/** Panel error codes: stable strings callers match on (docs/errors.md lists them). */
export const PANEL_ERROR_CODES = {
  PANEL_NOT_INITIALIZED: 'no panel identity under DATA_DIR: run `arus-panel init` first',
  PANEL_ALREADY_INITIALIZED: 'init refused: a panel identity already exists under DATA_DIR',
  PANEL_ELOCKED: 'the store is in use by a running panel (ELOCKED); stop it first',
  PANEL_NOT_FOUND: 'the named user, stream, publisher, admin or device does not exist',
  PANEL_EXISTS: 'a user, stream, publisher or admin with that name already exists',
  PANEL_INVALID_INPUT: 'an argument failed validation; the message names the field',
  PANEL_NO_STREAM_KEY: 'the stream has no key on this panel (it was never added or registered)',
  PANEL_ESCROW_MISMATCH: 'the escrow file decrypted but its content is not a valid identity for its fingerprint',
  PANEL_ESCROW_UNREADABLE: 'the escrow file is not JSON',
  PANEL_RESTORE_TARGET: 'the --restore-to directory must be empty or absent'
} as const

export type PanelErrorCode = keyof typeof PANEL_ERROR_CODES

/** HTTP status of each code when it crosses the admin API. */
const STATUS: Record<PanelErrorCode, number> = {
  PANEL_NOT_INITIALIZED: 500,
  PANEL_ALREADY_INITIALIZED: 409,
  PANEL_NOT_FOUND: 404,
  PANEL_EXISTS: 409,
  PANEL_INVALID_INPUT: 400,
  PANEL_ELOCKED: 503,
  PANEL_NO_STREAM_KEY: 409,
  PANEL_RESTORE_TARGET: 400,
  PANEL_ESCROW_MISMATCH: 400,
  PANEL_ESCROW_UNREADABLE: 400
}

export class PanelError extends ArusError {
  declare readonly code: PanelErrorCode
  constructor (code: PanelErrorCode, message: string = PANEL_ERROR_CODES[code]) {
    super(code, message, { status: STATUS[code] })
    this.name = 'PanelError'
  }

  static notFound (what: string): PanelError { return new PanelError('PANEL_NOT_FOUND', `${what} not found`) }
  static exists (what: string): PanelError { return new PanelError('PANEL_EXISTS', `${what} already exists`) }
  static invalid (message: string): PanelError { return new PanelError('PANEL_INVALID_INPUT', message) }
}

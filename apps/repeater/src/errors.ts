import { ArusError, type ErrorTable } from '@arus/service'

/** Repeater error codes: stable strings callers match on, their HTTP status and meaning (docs/errors.md lists them). */
export const REPEATER_ERROR_CODES = {
  REPEATER_BAD_STATE: { status: 500, meaning: 'a file under DATA_DIR is damaged; the message names it and what to do' },
  REPEATER_NOT_RUNNING: { status: 503, meaning: 'the command needs the running repeater\'s STATUS_PORT, and nothing answers there' }
} as const satisfies ErrorTable

export type RepeaterErrorCode = keyof typeof REPEATER_ERROR_CODES

export class RepeaterError extends ArusError {
  declare readonly code: RepeaterErrorCode
  constructor (code: RepeaterErrorCode, message: string = REPEATER_ERROR_CODES[code].meaning) {
    super(code, message, { status: REPEATER_ERROR_CODES[code].status })
    this.name = 'RepeaterError'
  }

  static badState (message: string): RepeaterError { return new RepeaterError('REPEATER_BAD_STATE', message) }
  static notRunning (message: string): RepeaterError { return new RepeaterError('REPEATER_NOT_RUNNING', message) }
}

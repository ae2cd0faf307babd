import { ArusError, type ArusErrorInit, type ErrorTable } from '@arus/service'

/**
 * Every code `@arus/reports` throws, with its HTTP status and meaning. Codes are stable and
 * never reused; callers match on `err.code`, never on message text.
 */
export const REPORTS_ERROR_CODES = {
  REPORTS_NOT_FOUND: { status: 404, meaning: 'No stored report or alert has that id (it may have been pruned by retention or evicted at the 5000-report cap).' },
  REPORTS_DISABLED: { status: 409, meaning: 'REPORTS_RETENTION_DAYS=0: reports are disabled, so there is nothing to acknowledge or resolve.' },
  REPORTS_BUSY: { status: 503, meaning: 'The reports file stayed locked by another process (the panel or a CLI command) longer than the bound; retry.' },
  REPORTS_CORRUPT: { status: 500, meaning: 'A reports or alerts file is not valid JSON of its version; the message names the file, never its content.' }
} as const satisfies ErrorTable

/** One of the codes in {@link REPORTS_ERROR_CODES}. */
export type ReportsErrorCode = keyof typeof REPORTS_ERROR_CODES

/** The only error class `@arus/reports` throws (besides the kit's file errors). */
export class ReportsError extends ArusError {
  declare readonly code: ReportsErrorCode

  constructor (code: ReportsErrorCode, message: string, init: Omit<ArusErrorInit, 'status'> = {}) {
    super(code, message, { ...init, status: REPORTS_ERROR_CODES[code].status })
    this.name = 'ReportsError'
  }

  static notFound (what: 'report' | 'alert', id: string): ReportsError {
    return new ReportsError('REPORTS_NOT_FOUND', /^[a-z0-9-]{1,40}$/.test(id) ? `${what} ${id} not found` : `${what} not found`)
  }

  static disabled (): ReportsError {
    return new ReportsError('REPORTS_DISABLED', 'reports are disabled (REPORTS_RETENTION_DAYS=0)')
  }

  static busy (file: string): ReportsError {
    return new ReportsError('REPORTS_BUSY', `${file} is locked by another process; retry`)
  }

  static corrupt (file: string): ReportsError {
    return new ReportsError('REPORTS_CORRUPT', `${file} is not a valid reports file`)
  }
}

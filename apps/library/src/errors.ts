import { ArusError, type ErrorTable } from '@arus/service'

/** Library error codes: stable strings callers match on, their HTTP status and meaning (docs/errors.md lists them). */
export const LIBRARY_ERROR_CODES = {
  LIBRARY_NOT_FOUND: { status: 404, meaning: 'the named title does not exist' },
  LIBRARY_EXISTS: { status: 409, meaning: 'a title with that id already exists' },
  LIBRARY_INVALID_INPUT: { status: 400, meaning: 'a field failed validation; the message names the field' },
  LIBRARY_INGESTING: { status: 409, meaning: 'the title is being ingested: wait for it to finish (delete is refused mid-ingest)' },
  LIBRARY_ELOCKED: { status: 503, meaning: 'a one-shot command would write what the running library holds: use the control API, or stop the daemon first' },
  LIBRARY_CLOSED: { status: 503, meaning: 'the library is shutting down' }
} as const satisfies ErrorTable

export type LibraryErrorCode = keyof typeof LIBRARY_ERROR_CODES

export class LibraryError extends ArusError {
  declare readonly code: LibraryErrorCode
  constructor (code: LibraryErrorCode, message: string = LIBRARY_ERROR_CODES[code].meaning) {
    super(code, message, { status: LIBRARY_ERROR_CODES[code].status })
    this.name = 'LibraryError'
  }

  static notFound (id: string): LibraryError { return new LibraryError('LIBRARY_NOT_FOUND', `title "${id}" not found`) }
  static exists (id: string): LibraryError { return new LibraryError('LIBRARY_EXISTS', `title "${id}" already exists`) }
  static invalid (message: string): LibraryError { return new LibraryError('LIBRARY_INVALID_INPUT', message) }
  static ingesting (id: string): LibraryError { return new LibraryError('LIBRARY_INGESTING', `title "${id}" is being ingested: delete is refused until it finishes`) }
  static closed (): LibraryError { return new LibraryError('LIBRARY_CLOSED') }
}

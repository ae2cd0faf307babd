/**
 * Every code `@arus/catalog` can throw, with its one-line meaning. Codes are stable and
 * never reused; callers match on `err.code`, never on message text.
 */
export const CATALOG_ERROR_CODES = {
  CATALOG_INVALID_RECORD: 'A record failed its schema; the message and `fields` name the offending fields.',
  CATALOG_INVALID_KEY: 'A key is outside the key layout, or its id / username / slug / name part is malformed.',
  CATALOG_INVALID_STREAM_ID: 'A stream id (manual or <prefix><feed id> from a source) breaks the id rule.',
  CATALOG_INVALID_ARGUMENT: 'An option or argument has the wrong type or range (e.g. a list limit).',
  CATALOG_INVALID_KEYPAIR: 'The panel keypair or public key has the wrong type or length, or its halves do not match.',
  CATALOG_NOT_WRITABLE: 'The catalog core opened by the writer is not writable with the given keypair.',
  CATALOG_RECORD_TOO_LARGE: 'An encoded record exceeds MAX_RECORD_BYTES.',
  CATALOG_STORED_RECORD_INVALID: 'The writer read a stored value that is not a valid record for its key.',
  CATALOG_READ_TIMEOUT: 'A read needed blocks that no peer delivered within the read timeout.',
  CATALOG_CLOSED: 'The writer or reader was used after close().'
} as const

/** One of the codes in {@link CATALOG_ERROR_CODES}. */
export type CatalogErrorCode = keyof typeof CATALOG_ERROR_CODES

/** The only error class `@arus/catalog` throws. */
export class CatalogError extends Error {
  readonly code: CatalogErrorCode
  /** Field paths at fault (dotted), for CATALOG_INVALID_RECORD; empty otherwise. */
  readonly fields: readonly string[]

  constructor (code: CatalogErrorCode, message: string, opts: { fields?: readonly string[]; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause })
    this.name = 'CatalogError'
    this.code = code
    this.fields = opts.fields ?? []
  }

  static invalidRecord (key: string, problems: ReadonlyArray<{ field: string; message: string }>): CatalogError {
    const list = problems.map((p) => `${p.field}: ${p.message}`).join('; ')
    return new CatalogError('CATALOG_INVALID_RECORD', `invalid record for ${key}: ${list}`, {
      fields: problems.map((p) => p.field)
    })
  }

  static invalidKey (key: string, why: string): CatalogError {
    return new CatalogError('CATALOG_INVALID_KEY', `invalid catalog key ${JSON.stringify(key)}: ${why}`)
  }

  static invalidStreamId (id: string, why: string): CatalogError {
    return new CatalogError('CATALOG_INVALID_STREAM_ID', `invalid streamId ${JSON.stringify(id)}: ${why}`, { fields: ['streamId'] })
  }

  static invalidArgument (name: string, why: string): CatalogError {
    return new CatalogError('CATALOG_INVALID_ARGUMENT', `invalid ${name}: ${why}`)
  }

  static invalidKeyPair (why: string): CatalogError {
    return new CatalogError('CATALOG_INVALID_KEYPAIR', `invalid panel key: ${why}`)
  }

  static notWritable (): CatalogError {
    return new CatalogError('CATALOG_NOT_WRITABLE', 'the catalog core is not writable with this keypair')
  }

  static tooLarge (key: string, bytes: number, max: number): CatalogError {
    return new CatalogError('CATALOG_RECORD_TOO_LARGE', `record for ${key} is ${bytes} bytes; the limit is ${max}`)
  }

  static storedInvalid (key: string, cause?: unknown): CatalogError {
    return new CatalogError('CATALOG_STORED_RECORD_INVALID', `the stored value at ${key} is not a valid record`, { cause })
  }

  static readTimeout (key: string, cause?: unknown): CatalogError {
    return new CatalogError('CATALOG_READ_TIMEOUT', `no peer delivered the blocks for ${key} in time`, { cause })
  }

  static closed (what: 'writer' | 'reader'): CatalogError {
    return new CatalogError('CATALOG_CLOSED', `the catalog ${what} is closed`)
  }
}

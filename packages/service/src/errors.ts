/**
 * Coded errors for Arus daemons.
 *
 * `ArusError` is the base every daemon-side package may extend: a stable
 * SCREAMING_SNAKE `code`, the HTTP `status` it maps to when it crosses HTTP,
 * optional structured `details` (never secrets), and a `toJSON()` that yields
 * the HTTP error envelope `{ error: { code, message } }`.
 */

/** Brand shared by every copy of this package, so `isArusError` works across bundles. */
const ARUS_ERROR = Symbol.for('arus.error')

/** Options accepted by the `ArusError` constructor. */
export interface ArusErrorInit {
  /** HTTP status the code maps to (default 500). */
  status?: number
  /** Structured, non-secret context (paths, variable names, counts). */
  details?: Record<string, unknown>
  /** The underlying error, kept for logs (`err.cause`). */
  cause?: unknown
}

/** The HTTP error body every daemon answers with. */
export interface ErrorEnvelope {
  error: { code: string; message: string }
}

/** Base class of every coded Arus error. Match on `code`, never on `message`. */
export class ArusError extends Error {
  /** Stable machine-readable code, e.g. `SERVICE_INVALID_CONFIG`. */
  readonly code: string
  /** HTTP status the code maps to. */
  readonly status: number
  /** Structured, non-secret context. */
  readonly details?: Record<string, unknown>

  constructor (code: string, message: string, init: ArusErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause })
    this.name = 'ArusError'
    this.code = code
    this.status = init.status ?? 500
    if (init.details !== undefined) this.details = init.details
  }

  /** The HTTP error envelope; details and cause stay server-side. */
  toJSON (): ErrorEnvelope {
    return { error: { code: this.code, message: this.message } }
  }
}

Object.defineProperty(ArusError.prototype, ARUS_ERROR, { value: true })

/** True for any `ArusError` (or subclass), including one from another copy of this package. */
export function isArusError (e: unknown): e is ArusError {
  return typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[ARUS_ERROR] === true
}

/**
 * Every code `@arus/service` can throw, with its meaning and HTTP status.
 * Codes are stable and never reused.
 */
export const SERVICE_ERROR_CODES = {
  SERVICE_INVALID_CONFIG: { status: 500, meaning: 'The environment failed validation; the message names every bad variable.' },
  SERVICE_INVALID_ARGUMENT: { status: 500, meaning: 'A function of @arus/service was called with invalid options (a programming error).' },
  SERVICE_FILE_IO: { status: 500, meaning: 'A file or directory operation failed (the message names the path and the OS error code).' },
  SERVICE_FILE_NOT_FOUND: { status: 500, meaning: 'A required file does not exist.' },
  SERVICE_CORRUPT_FILE: { status: 500, meaning: 'A file is not valid JSON or does not match its schema (its content is never echoed).' }
} as const

/** A code of `SERVICE_ERROR_CODES`. */
export type ServiceErrorCode = keyof typeof SERVICE_ERROR_CODES

/** The error class of `@arus/service`; build it through the static factories. */
export class ServiceError extends ArusError {
  declare readonly code: ServiceErrorCode

  constructor (code: ServiceErrorCode, message: string, init: Omit<ArusErrorInit, 'status'> = {}) {
    super(code, message, { ...init, status: SERVICE_ERROR_CODES[code].status })
    this.name = 'ServiceError'
  }

  static invalidConfig (message: string, details?: Record<string, unknown>): ServiceError {
    return new ServiceError('SERVICE_INVALID_CONFIG', message, details === undefined ? {} : { details })
  }

  static invalidArgument (message: string): ServiceError {
    return new ServiceError('SERVICE_INVALID_ARGUMENT', message)
  }

  /** `op` is a verb phrase such as 'write' or 'read'; only the OS error code of `cause` enters the message. */
  static fileIo (op: string, path: string, cause: unknown): ServiceError {
    const osCode = osErrorCode(cause)
    return new ServiceError('SERVICE_FILE_IO', `could not ${op} ${path}: ${osCode ?? 'unknown error'}`, {
      details: { path, op, ...(osCode === undefined ? {} : { osCode }) },
      cause
    })
  }

  static fileNotFound (path: string): ServiceError {
    return new ServiceError('SERVICE_FILE_NOT_FOUND', `file not found: ${path}`, { details: { path } })
  }

  /** `reason` must describe the problem without quoting the file's content. */
  static corruptFile (path: string, reason: string, details: Record<string, unknown> = {}): ServiceError {
    return new ServiceError('SERVICE_CORRUPT_FILE', `corrupt file ${path}: ${reason}`, { details: { path, ...details } })
  }
}

/** The `code` of a Node system error (`ENOENT`, `EACCES`, ...), if any. */
export function osErrorCode (e: unknown): string | undefined {
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined
  return typeof code === 'string' ? code : undefined
}

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
  SERVICE_CORRUPT_FILE: { status: 500, meaning: 'A file is not valid JSON or does not match its schema (its content is never echoed).' },
  SERVICE_VALIDATION_FAILED: { status: 400, meaning: 'An HTTP request failed its schema (body, query or path parameters, or malformed JSON); the message names the fields.' },
  SERVICE_UNAUTHORIZED: { status: 401, meaning: 'No valid admin session: the bearer token is missing, malformed, forged or expired, or its session ended (password rotated, admin removed).' },
  SERVICE_BAD_CREDENTIALS: { status: 401, meaning: 'Login refused: unknown name or wrong password (the two are not told apart).' },
  SERVICE_FORBIDDEN: { status: 403, meaning: 'The bearer token is authentic but is not an admin token (e.g. a viewer session token).' },
  SERVICE_NOT_FOUND: { status: 404, meaning: 'No route matches the method and path.' },
  SERVICE_PAYLOAD_TOO_LARGE: { status: 413, meaning: 'The request body exceeds the route\'s size limit.' },
  SERVICE_UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: 'The request body has a content type the route does not accept.' },
  SERVICE_LOCKED: { status: 429, meaning: 'Too many login attempts for this name or client address; the body carries retryAfter (seconds).' },
  SERVICE_VERIFY_BUSY: { status: 503, meaning: 'A password verification is already running (one at a time); the login is refused at once.' },
  SERVICE_VERIFY_TIMEOUT: { status: 503, meaning: 'The password verification exceeded loginVerifyTimeoutMs; its worker was terminated and replaced.' },
  SERVICE_ADMIN_NOT_FOUND: { status: 404, meaning: 'The named admin account does not exist.' },
  SERVICE_ADMIN_EXISTS: { status: 409, meaning: 'An admin account with that name already exists.' },
  SERVICE_NO_PASSWORD: { status: 400, meaning: 'A CLI command got no password on its prompt or on stdin.' },
  SERVICE_INTERNAL: { status: 500, meaning: 'An unexpected server error; the details are in the daemon log, never in the response.' }
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

  /** `fields` are the dotted paths at fault (e.g. 'body.password'); values are never echoed. */
  static validationFailed (message: string, fields: string[] = []): ServiceError {
    return new ServiceError('SERVICE_VALIDATION_FAILED', message, { details: { fields } })
  }

  static unauthorized (message = 'a valid admin bearer token is required'): ServiceError {
    return new ServiceError('SERVICE_UNAUTHORIZED', message)
  }

  static badCredentials (): ServiceError {
    return new ServiceError('SERVICE_BAD_CREDENTIALS', 'unknown name or wrong password')
  }

  static forbidden (message: string): ServiceError {
    return new ServiceError('SERVICE_FORBIDDEN', message)
  }

  static notFound (method: string, url: string): ServiceError {
    return new ServiceError('SERVICE_NOT_FOUND', `no route ${method} ${url.split('?')[0]!.slice(0, 200)}`)
  }

  static payloadTooLarge (limit?: number): ServiceError {
    return new ServiceError('SERVICE_PAYLOAD_TOO_LARGE', limit === undefined ? 'request body too large' : `request body larger than ${limit} bytes`)
  }

  static unsupportedMediaType (message: string): ServiceError {
    return new ServiceError('SERVICE_UNSUPPORTED_MEDIA_TYPE', message)
  }

  /** `retryAfter` (whole seconds) goes to `details.retryAfter`; the HTTP layer adds it to the body and a Retry-After header. */
  static locked (retryAfter: number): ServiceError {
    return new ServiceError('SERVICE_LOCKED', `too many login attempts; retry after ${retryAfter} s`, { details: { retryAfter } })
  }

  static verifyBusy (): ServiceError {
    return new ServiceError('SERVICE_VERIFY_BUSY', 'a password verification is already running; retry shortly')
  }

  static verifyTimeout (timeoutMs: number): ServiceError {
    return new ServiceError('SERVICE_VERIFY_TIMEOUT', `password verification exceeded ${timeoutMs} ms`)
  }

  static adminNotFound (name: string): ServiceError {
    return new ServiceError('SERVICE_ADMIN_NOT_FOUND', `admin "${name.slice(0, 64)}" not found`)
  }

  static adminExists (name: string): ServiceError {
    return new ServiceError('SERVICE_ADMIN_EXISTS', `admin "${name.slice(0, 64)}" already exists`)
  }

  static noPassword (): ServiceError {
    return new ServiceError('SERVICE_NO_PASSWORD', 'no password was given on the prompt or on stdin')
  }

  static internal (message = 'internal error', cause?: unknown): ServiceError {
    return new ServiceError('SERVICE_INTERNAL', message, cause === undefined ? {} : { cause })
  }
}

/** The `code` of a Node system error (`ENOENT`, `EACCES`, ...), if any. */
export function osErrorCode (e: unknown): string | undefined {
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined
  return typeof code === 'string' ? code : undefined
}

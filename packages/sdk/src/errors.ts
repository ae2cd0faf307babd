/**
 * Every code `@arus/sdk` can throw or emit, with its one-line meaning. Codes are stable and
 * never reused; hosts match on `err.code`. Where spec 3 names a message ("not connected to
 * panel", "not entitled to <id>", ...), the error carries exactly that message.
 */
export const SDK_ERROR_CODES = {
  SDK_INVALID_OPTIONS: 'createPlayer options failed validation; the message names every bad option.',
  SDK_INVALID_ARGUMENT: 'A method was called with an invalid argument (bad hex, unknown report category, ...).',
  SDK_NO_PANEL_KEY: 'connect() was called without a panel key, and none was given to createPlayer.',
  SDK_NOT_CONNECTED: "'not connected to panel': the panel link is still dialing (retry) or connect() was not called; from loginWithRetry and the engine's login, after 30 s of retries: a wrong panel key or an unreachable panel.",
  SDK_NOT_LOGGED_IN: 'The method needs a successful login() first.',
  SDK_WRONG_PASSWORD: 'The username or password is wrong (checked client-side: the account\'s sealed key does not open with it).',
  SDK_LOGIN_LOCKED: 'The panel throttles this account or device; retry after `retryAfter` seconds.',
  SDK_ACCOUNT_DISABLED: 'The panel refused the session: the account is disabled.',
  SDK_LOGIN_FAILED: 'The panel refused or failed the login for another reason (the message says which).',
  SDK_CATALOG_UNAVAILABLE: 'The replicated catalog could not be read in time (no peer delivered the blocks).',
  SDK_NOT_ENTITLED: "'not entitled to <id>': the account holds no grant for the stream.",
  SDK_NOT_BROADCASTING: "'channel is not broadcasting right now': an entitled live channel has no feed.",
  SDK_TITLE_UNAVAILABLE: "'title is not available right now': an entitled vod title has no feed.",
  SDK_TUNE_TIMEOUT: 'The tune ladder was exhausted (open, retune, reconnect) without a playable feed; re-zap to retry.',
  SDK_REPORT_REJECTED: 'The panel refused a problem report (the in-band reason is in the message).',
  SDK_SERVER_FAILED: 'The local HTTP server could not start listening on 127.0.0.1.',
  SDK_STORE_CORRUPT: 'The replica store stayed unreadable after it was purged and the operation retried once.',
  SDK_STOPPED: 'The player was used after stop().',
  SDK_ENGINE_BAD_LINE: 'Engine IPC: a command line was dropped (not JSON, not an object, over the line cap, or invalid fields).',
  SDK_ENGINE_UNKNOWN_COMMAND: "Engine IPC: the command's `cmd` is not one this engine knows (the engine carries on).",
  SDK_ENGINE_NOT_STARTED: "Engine IPC: the command needs a 'start' first.",
  SDK_ENGINE_PROTOCOL: "Engine IPC: 'start' twice, or the host speaks a newer protocol version than the engine.",
  SDK_ENGINE_FAILED: 'Engine IPC: a command failed for a reason without its own code (the message says which).'
} as const

/** One of the codes in {@link SDK_ERROR_CODES}. */
export type SdkErrorCode = keyof typeof SDK_ERROR_CODES

/** The only error class `@arus/sdk` throws or emits. */
export class SdkError extends Error {
  readonly code: SdkErrorCode
  /** Seconds to wait before retrying (SDK_LOGIN_LOCKED). */
  readonly retryAfter?: number

  constructor (code: SdkErrorCode, message: string, opts: { cause?: unknown; retryAfter?: number } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause })
    this.name = 'SdkError'
    this.code = code
    if (opts.retryAfter !== undefined) this.retryAfter = opts.retryAfter
  }

  /** An engine IPC error (docs/engine-ipc.md). */
  static engine (code: Extract<SdkErrorCode, `SDK_ENGINE_${string}`>, message: string): SdkError {
    return new SdkError(code, message)
  }

  static invalidOptions (problems: string[]): SdkError {
    return new SdkError('SDK_INVALID_OPTIONS', `invalid player options: ${problems.join('; ')}`)
  }

  static invalidArgument (name: string, why: string): SdkError {
    return new SdkError('SDK_INVALID_ARGUMENT', `invalid ${name}: ${why}`)
  }

  static noPanelKey (): SdkError {
    return new SdkError('SDK_NO_PANEL_KEY', 'no panel key: pass panelPubKey to createPlayer or connect')
  }

  /** Spec 3 "Errors": the exact message hosts match in the login retry pattern. */
  static notConnected (): SdkError {
    return new SdkError('SDK_NOT_CONNECTED', 'not connected to panel')
  }

  static notLoggedIn (): SdkError {
    return new SdkError('SDK_NOT_LOGGED_IN', 'not logged in: call login() first')
  }

  static wrongPassword (): SdkError {
    return new SdkError('SDK_WRONG_PASSWORD', 'wrong username or password')
  }

  static locked (retryAfter: number | undefined): SdkError {
    const wait = retryAfter === undefined ? '' : ` (retry in ${retryAfter} s)`
    return new SdkError('SDK_LOGIN_LOCKED', `too many login attempts${wait}`, retryAfter === undefined ? {} : { retryAfter })
  }

  static disabled (): SdkError {
    return new SdkError('SDK_ACCOUNT_DISABLED', 'this account is disabled')
  }

  static loginFailed (reason: string, cause?: unknown): SdkError {
    return new SdkError('SDK_LOGIN_FAILED', `login failed: ${reason}`, { cause })
  }

  static catalogUnavailable (cause?: unknown): SdkError {
    return new SdkError('SDK_CATALOG_UNAVAILABLE', 'the catalog could not be read from the panel in time', { cause })
  }

  static notEntitled (id: string): SdkError {
    return new SdkError('SDK_NOT_ENTITLED', `not entitled to ${id}`)
  }

  static notBroadcasting (): SdkError {
    return new SdkError('SDK_NOT_BROADCASTING', 'channel is not broadcasting right now')
  }

  static titleUnavailable (): SdkError {
    return new SdkError('SDK_TITLE_UNAVAILABLE', 'title is not available right now')
  }

  static tuneTimeout (): SdkError {
    return new SdkError('SDK_TUNE_TIMEOUT', 'could not tune in: nobody is serving this channel right now, try again in a moment')
  }

  static reportRejected (reason: string, cause?: unknown): SdkError {
    return new SdkError('SDK_REPORT_REJECTED', `report refused: ${reason}`, { cause })
  }

  static serverFailed (cause: unknown): SdkError {
    return new SdkError('SDK_SERVER_FAILED', 'the local HTTP server could not listen on 127.0.0.1', { cause })
  }

  static storeCorrupt (cause: unknown): SdkError {
    return new SdkError('SDK_STORE_CORRUPT', 'the local replica store is unreadable even after a purge', { cause })
  }

  static stopped (): SdkError {
    return new SdkError('SDK_STOPPED', 'the player is stopped')
  }
}

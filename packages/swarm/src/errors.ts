/**
 * Every code `@arus/swarm` can throw, with its one-line meaning. Codes are stable and
 * never reused; callers match on `err.code`, never on the message.
 */
export const SWARM_ERROR_CODES = {
  SWARM_BAD_BOOTSTRAP: 'A DHT bootstrap list or one of its host:port entries is malformed',
  SWARM_BAD_KEY: 'A public key or key pair has the wrong type or length',
  SWARM_BAD_OPTION: 'An option passed to a swarm or store factory is invalid',
  SWARM_BAD_CLI_ARGUMENT: 'An arus-testnet command-line argument is unknown or invalid',
  SWARM_DESTROYED: 'The swarm or its DHT was already destroyed',
  SWARM_CLOSE_FAILED: 'One or more resources failed to close (the others were still closed)'
} as const

/** One of the stable codes in {@link SWARM_ERROR_CODES}. */
export type SwarmErrorCode = keyof typeof SWARM_ERROR_CODES

/** The single error class of `@arus/swarm`; `code` is one of {@link SWARM_ERROR_CODES}. */
export class SwarmError extends Error {
  readonly code: SwarmErrorCode

  constructor (code: SwarmErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'SwarmError'
    this.code = code
  }

  static badBootstrap (entry: string, reason: string): SwarmError {
    return new SwarmError('SWARM_BAD_BOOTSTRAP', `Bad bootstrap entry ${JSON.stringify(entry)}: ${reason}`)
  }

  static badKey (what: string, reason: string): SwarmError {
    return new SwarmError('SWARM_BAD_KEY', `Bad ${what}: ${reason}`)
  }

  static badOption (name: string, reason: string): SwarmError {
    return new SwarmError('SWARM_BAD_OPTION', `Bad option ${name}: ${reason}`)
  }

  static badCliArgument (message: string): SwarmError {
    return new SwarmError('SWARM_BAD_CLI_ARGUMENT', message)
  }

  static destroyed (): SwarmError {
    return new SwarmError('SWARM_DESTROYED', 'The swarm or its DHT was already destroyed')
  }

  static closeFailed (errors: unknown[]): SwarmError {
    return new SwarmError(
      'SWARM_CLOSE_FAILED',
      `${errors.length} resource(s) failed to close`,
      { cause: new AggregateError(errors, 'close failures') }
    )
  }
}

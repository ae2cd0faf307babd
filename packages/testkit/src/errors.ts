/** Every code `@arus/testkit` can throw, with its one-line meaning. */
export const TESTKIT_ERROR_CODES = {
  TESTKIT_TIMEOUT: 'A bounded wait (waitFor, waitForLine, waitForExit) ran out of time',
  TESTKIT_PROCESS_EXITED: 'A spawned process exited before printing the awaited line',
  TESTKIT_SPAWN_FAILED: 'A process could not be started (e.g. the command does not exist)',
  TESTKIT_BAD_LOG_LINE: 'A log sink line is not a JSON object',
  TESTKIT_BAD_OPTION: 'A helper was called with an invalid option',
  TESTKIT_CLEANUP_FAILED: 'One or more teardown steps failed (the others still ran)'
} as const

/** One of the stable codes in {@link TESTKIT_ERROR_CODES}. */
export type TestkitErrorCode = keyof typeof TESTKIT_ERROR_CODES

/** The single error class of `@arus/testkit`. */
export class TestkitError extends Error {
  readonly code: TestkitErrorCode

  constructor (code: TestkitErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'TestkitError'
    this.code = code
  }

  static timeout (what: string, ms: number, cause?: unknown): TestkitError {
    return new TestkitError('TESTKIT_TIMEOUT', `Timed out after ${ms} ms: ${what}`, { cause })
  }

  static processExited (what: string, detail: string): TestkitError {
    return new TestkitError('TESTKIT_PROCESS_EXITED', `Process exited before ${what}: ${detail}`)
  }

  static spawnFailed (cmd: string, cause: unknown): TestkitError {
    return new TestkitError('TESTKIT_SPAWN_FAILED', `Could not start ${JSON.stringify(cmd)}`, { cause })
  }

  static badLogLine (line: string, cause?: unknown): TestkitError {
    return new TestkitError('TESTKIT_BAD_LOG_LINE', `Log line is not a JSON object: ${line.slice(0, 200)}`, { cause })
  }

  static badOption (name: string, reason: string): TestkitError {
    return new TestkitError('TESTKIT_BAD_OPTION', `Bad option ${name}: ${reason}`)
  }

  static cleanupFailed (errors: unknown[]): TestkitError {
    return new TestkitError('TESTKIT_CLEANUP_FAILED', `${errors.length} teardown step(s) failed`, {
      cause: new AggregateError(errors, 'teardown failures')
    })
  }
}

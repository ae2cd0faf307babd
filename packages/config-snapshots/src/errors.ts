import { ArusError, type ArusErrorInit, type ErrorTable } from '@arus/service'

/**
 * Every code `@arus/config-snapshots` throws, with its HTTP status and meaning. Codes are
 * stable and never reused; callers match on `err.code`, never on message text.
 */
export const CONFIG_ERROR_CODES = {
  CONFIG_INVALID_ARGUMENT: { status: 500, meaning: 'createConfigSnapshots was given invalid options (a programming error): bad keep, duplicate or malformed section names, a section without toTemplate.' },
  CONFIG_INVALID_INPUT: { status: 400, meaning: 'An operation input (note, flags) failed its schema; the message names the fields, never their values.' },
  CONFIG_SNAPSHOT_NOT_FOUND: { status: 404, meaning: 'No snapshot has that id (ids that are not well-formed are refused the same way, before any file is read).' },
  CONFIG_SNAPSHOT_CORRUPT: { status: 500, meaning: 'A snapshot file is not valid JSON or does not match its schema; the message names the failing fields, never the content.' },
  CONFIG_SECTION_INVALID: { status: 500, meaning: 'A section exported data that fails its own schema, or its apply returned a malformed plan (a daemon bug).' },
  CONFIG_CONFIRM_REQUIRED: { status: 400, meaning: 'A restore or template import was asked for without confirm: true.' },
  CONFIG_RESTORE_UNSUPPORTED: { status: 409, meaning: 'This service is export-only: plan, restore and template import are refused.' },
  CONFIG_INVALID_TEMPLATE: { status: 400, meaning: 'A template is not a valid arus-config-template envelope or a section fails its schema; the message names the fields, never their values.' },
  CONFIG_WRONG_SERVICE: { status: 409, meaning: 'The template or snapshot was made by another service (e.g. a broadcaster template given to the panel).' }
} as const satisfies ErrorTable

/** One of the codes in {@link CONFIG_ERROR_CODES}. */
export type ConfigErrorCode = keyof typeof CONFIG_ERROR_CODES

/** A zod issue reduced to what may be shown: the field path and the issue code, never the value. */
export interface FieldIssue { path: string; code: string }

/** The only error class `@arus/config-snapshots` throws (besides the kit's SERVICE_FILE_IO). */
export class ConfigError extends ArusError {
  declare readonly code: ConfigErrorCode

  constructor (code: ConfigErrorCode, message: string, init: Omit<ArusErrorInit, 'status'> = {}) {
    super(code, message, { ...init, status: CONFIG_ERROR_CODES[code].status })
    this.name = 'ConfigError'
  }

  static invalidArgument (message: string): ConfigError {
    return new ConfigError('CONFIG_INVALID_ARGUMENT', message)
  }

  static invalidInput (what: string, issues: FieldIssue[]): ConfigError {
    return new ConfigError('CONFIG_INVALID_INPUT', `invalid ${what}: ${where(issues)}`, { details: { fields: issues.map((i) => i.path) } })
  }

  /** `id` is echoed only when it is well-formed (a malformed one may be a path). */
  static snapshotNotFound (id: string, wellFormed: boolean): ConfigError {
    return new ConfigError('CONFIG_SNAPSHOT_NOT_FOUND', wellFormed ? `snapshot ${id} not found` : 'snapshot not found: not a snapshot id')
  }

  static snapshotCorrupt (id: string, reason: string, issues: FieldIssue[] = []): ConfigError {
    const at = issues.length === 0 ? '' : ` at ${where(issues)}`
    return new ConfigError('CONFIG_SNAPSHOT_CORRUPT', `snapshot ${id} is corrupt: ${reason}${at}`, { details: { id, issues } })
  }

  static sectionInvalid (section: string, what: string, issues: FieldIssue[]): ConfigError {
    return new ConfigError('CONFIG_SECTION_INVALID', `section ${section}: ${what} fails its schema at ${where(issues)}`, { details: { section, issues } })
  }

  static confirmRequired (what: string): ConfigError {
    return new ConfigError('CONFIG_CONFIRM_REQUIRED', `${what} needs confirm: true`)
  }

  static restoreUnsupported (service: string): ConfigError {
    return new ConfigError('CONFIG_RESTORE_UNSUPPORTED', `${service} is export-only: restore and template import are not supported`)
  }

  static invalidTemplate (reason: string, issues: FieldIssue[] = []): ConfigError {
    return new ConfigError('CONFIG_INVALID_TEMPLATE', issues.length === 0 ? `invalid template: ${reason}` : `invalid template: ${reason} at ${where(issues)}`, { details: { fields: issues.map((i) => i.path) } })
  }

  static wrongService (what: 'template' | 'snapshot', theirs: string, ours: string): ConfigError {
    return new ConfigError('CONFIG_WRONG_SERVICE', `this ${what} was made by ${theirs.slice(0, 64)}, not ${ours}`)
  }
}

/** The first few failing field paths, for messages. */
function where (issues: FieldIssue[]): string {
  const paths = [...new Set(issues.map((i) => i.path === '' ? '(root)' : i.path))]
  return paths.slice(0, 5).join(', ') + (paths.length > 5 ? ', ...' : '')
}

/** zod issues → field paths and codes (zod messages may quote the input, so they are dropped). */
export function fieldIssues (issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; code: string }>, prefix: string[] = []): FieldIssue[] {
  return issues.slice(0, 20).map((i) => ({ path: [...prefix, ...i.path.map(String)].join('.'), code: i.code }))
}

/**
 * The daemon logger: pino with fixed redaction, NDJSON by default on stdout,
 * or a small built-in human format.
 */
import { pino } from 'pino'
import type { DestinationStream, Logger } from 'pino'
import { z } from 'zod'
import { loadConfig } from './config.js'
import type { Env } from './config.js'
import { env } from './env.js'
import { ServiceError } from './errors.js'
import { createPrettyStream } from './pretty.js'
import { REDACT_PATHS, REDACTED, scrubSecrets } from './redact.js'

/** Output format: NDJSON, or one human line per record. */
export type LogFormat = 'json' | 'pretty'

/** The pino levels a daemon may run at. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = typeof LOG_LEVELS[number]

/** Options of `createLogger`. */
export interface LoggerInit {
  /** Written as `name` on every line (e.g. 'panel'). */
  name: string
  /** Minimum level (default 'info'). */
  level?: LogLevel
  /** 'json' (default) or 'pretty'. */
  format?: LogFormat
  /** Where lines go (default stdout). Tests pass a sink that collects lines. */
  destination?: NodeJS.WritableStream | DestinationStream
}

const initSchema = z.object({
  name: z.string().min(1),
  level: z.enum(LOG_LEVELS).default('info'),
  format: z.enum(['json', 'pretty']).default('json')
})

/**
 * Builds the daemon's pino logger. Secrets are redacted by fixed paths
 * (`REDACT_PATHS`) and by a scrub of secret keys at any depth of the logged
 * object; the censor is '[redacted]'.
 */
export function createLogger (init: LoggerInit): Logger {
  const parsed = initSchema.safeParse({ name: init.name, level: init.level, format: init.format })
  if (!parsed.success) throw ServiceError.invalidArgument(`createLogger: ${z.prettifyError(parsed.error)}`)
  const { name, level, format } = parsed.data
  const target: DestinationStream | NodeJS.WritableStream = init.destination ?? process.stdout
  const destination = format === 'pretty'
    ? createPrettyStream(target)
    : init.destination ?? pino.destination({ dest: 1, sync: true })
  return pino({
    name,
    level,
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    formatters: { log: (obj) => scrubSecrets(obj) }
  }, destination)
}

/** Environment fields for logging, to spread into a daemon's env schema. */
export const loggingEnv = {
  LOG_LEVEL: env.enum(LOG_LEVELS, 'info').describe('Minimum log level.'),
  LOG_FORMAT: env.enum(['json', 'pretty'], 'pretty').describe('`json` writes one JSON object per line (NDJSON) for log collectors; `pretty` writes human lines.')
}

/** Reads `LOG_FORMAT` ('json' or 'pretty'; unset means 'pretty'); throws `SERVICE_INVALID_CONFIG` otherwise. */
export function logFormatFromEnv (envVars: Env = process.env): LogFormat {
  return loadConfig(z.object({ LOG_FORMAT: loggingEnv.LOG_FORMAT }), envVars).LOG_FORMAT
}

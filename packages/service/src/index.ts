/**
 * @packageDocumentation
 * `@arus/service` — the kit every Arus daemon shares: coded errors, zod env
 * config parsed once and frozen, a pino logger with fixed redaction, atomic
 * private state files, and graceful shutdown.
 *
 * Later siblings (the Fastify control server, auth gate, single-flight verify
 * worker, lockout, /healthz and /metrics) build on these and will be exported
 * from here too.
 */

export { ArusError, ServiceError, SERVICE_ERROR_CODES, isArusError } from './errors.js'
export type { ArusErrorInit, ErrorEnvelope, ServiceErrorCode } from './errors.js'

export { env, envFieldRegistry } from './env.js'
export type { EnvSchema, EnvFieldMeta, IntInit, StrInit, HexInit, ListInit, UrlInit } from './env.js'

export { loadConfig, configDocs, deepFreeze, SECRET_NAME } from './config.js'
export type { Env, DeepReadonly, FrozenConfig, ConfigDoc, ConfigProblem } from './config.js'

export { createLogger, logFormatFromEnv, loggingEnv, LOG_LEVELS } from './logger.js'
export type { LoggerInit, LogFormat, LogLevel } from './logger.js'
export { REDACT_PATHS, REDACTED, SECRET_KEYS } from './redact.js'
export { formatPretty, createPrettyStream } from './pretty.js'
export type { LineSink } from './pretty.js'

export {
  writeFileAtomic, writeJsonAtomic, readJsonFile, ensurePrivateDir, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE
} from './files.js'
export type { WriteFileInit, ReadJsonInit } from './files.js'
export { withFileLock } from './file-lock.js'

export { onShutdown } from './lifecycle.js'
export type { Closer, Shutdown, ShutdownInit } from './lifecycle.js'

export type { Logger } from 'pino'

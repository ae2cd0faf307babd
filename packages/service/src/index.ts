/**
 * @packageDocumentation
 * `@arus/service` — the kit every Arus daemon shares: coded errors, zod env
 * config parsed once and frozen, a pino logger with fixed redaction, atomic
 * private state files, and graceful shutdown.
 *
 * The HTTP kit (`src/http/`) builds every daemon's control server on these: a
 * Fastify app with the error envelope, /healthz and /metrics before the auth
 * gate, admin login with lockout and a single-flight Argon2id verify worker,
 * bearer session tokens, a zod route helper and the OpenAPI document.
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
export { keyedRecord, ownValue } from './keyed.js'

export { onShutdown } from './lifecycle.js'
export { applyDaemonV8Flags, DAEMON_V8_FLAGS } from './jit.js'
export { childPrefix, dieWithParentPrefix, MAX_NICE, nicePrefix } from './child-process.js'
export type { Closer, Shutdown, ShutdownInit } from './lifecycle.js'

export { buildControlServer, listenControlServer } from './http/server.js'
export type { ControlServerDeps, ControlAuthDeps, ListenInit } from './http/server.js'
export type { DashboardInit } from './http/dashboard.js'
export { parseInput, route, routeTable } from './http/routes.js'
export type { RouteSpec, RouteInfo, RouteInput, RouteHandler, RouteMethod, RawBodySpec } from './http/routes.js'
export { buildOpenApi, openApiPath } from './http/openapi.js'
export type { OpenApiInfo, OpenApiDocument } from './http/openapi.js'
export { ADMIN_TOKEN_TYPE, authenticate, issueAdminToken, requestAdmin } from './http/auth.js'
export type { AdminSession, AuthGateInit, TokenKeys } from './http/auth.js'
export { LoginBody, LoginReply } from './http/login.js'
export type { AdminVerifier, LoginReplyExtension, LoginResult } from './http/login.js'
export { createLockout } from './http/lockout.js'
export type { Lockout, LockoutInit } from './http/lockout.js'
export { createVerifyWorker } from './http/verify-worker.js'
export type { VerifyJob, VerifyWorker, VerifyWorkerInit, VerifyWorkerStats } from './http/verify-worker.js'
export { toArusError } from './http/errors-http.js'
export type { ErrorMapper } from './http/errors-http.js'
export { isLoopbackHost } from './http/loopback.js'
export { createMetricsRegistry, Counter, Gauge, Histogram, Registry } from './http/metrics.js'
export type { MetricsRegistryInit } from './http/metrics.js'

export type { Logger } from 'pino'
export type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
export { readSecretLine, printResult, processIO, runCommandLine } from './cli-io.js'
export type { CliIO } from './cli-io.js'

export { createDaemonProgram, cliLogger } from './program.js'
export type { DaemonCli, DaemonProgramInit, RunningDaemon } from './program.js'
export { DAEMON_PORTS, swarmEnv, socketBufferEnv, configSnapshotEnv, swarmSettings, adminAuthEnv, controlEnv, controlSettings } from './env-sections.js'
export type { SwarmEnv, ControlSettings, ControlEnvSection } from './env-sections.js'
export { createActivity, withActor, ACTIVITY_RING_SIZE, ACTIVITY_BASE_FIELDS } from './admin/activity.js'
export type { Activity, ActivityEntry, ActivityFields, ActivityInit, ActivityValue } from './admin/activity.js'
export {
  createAdminRegistry, adminPasswordInput, ADMINS_FILE_VERSION, AddAdminInput, SetAdminPasswordInput, AdminNameParams,
  AdminName, AdminPassword, AdminView, AdminList, AdminEntry, DeletedReply
} from './admin/admins.js'
export type { AdminRegistry, AdminRegistryComponents, AdminRegistryInit } from './admin/admins.js'
export { adminRoutes } from './admin/admin-routes.js'
export { adminCommands } from './admin/admin-commands.js'
export { loadSigningKey } from './admin/signing-key.js'
export {
  mdCell, mdCode, mdTable, readRouteTable, referenceStub, renderCliTable, renderEnvExample, renderEnvTable, renderErrorsTable, renderReference,
  renderRoutesTable, replaceSection, routesWithoutReply, silentIO, writeReference
} from './docs/reference.js'
export type { DaemonReference, ErrorTable, ReferenceFile, ReferenceSection } from './docs/reference.js'

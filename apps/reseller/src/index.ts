/**
 * @packageDocumentation
 * The Arus reseller daemon: a role hierarchy (admin > co-admin > super > reseller), a credit
 * ledger that never loses a credit, accounts activated on the panel through its admin API,
 * trials, a signed top-up webhook and a white-label UI (docs/reseller.md).
 */
export { buildProgram, runCli } from './cli.js'
export type { CliIO } from '@arus/service'
export { main, type RunningReseller } from './main.js'
export { resellerEnvSchema, loadResellerConfig, type ResellerConfig } from './config.js'
export { ResellerError, RESELLER_ERROR_CODES, type ResellerErrorCode } from './errors.js'
export { webhookSignature } from './ledger/webhook.js'
export type { LedgerLine } from './ledger/line.js'

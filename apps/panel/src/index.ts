/**
 * @packageDocumentation
 * The Arus panel daemon: the signed catalog (single writer), accounts and grants,
 * publishers, the peer-to-peer RPC, and the admin CLI. The admin HTTP API reuses `ops/`.
 */
export { buildProgram, runCli } from './cli.js'
export { main, type RunningPanel } from './main.js'
export { loadPanelConfig, panelEnvSchema, panelSettings, type PanelConfig } from './config.js'
export { PanelError, PANEL_ERROR_CODES, type PanelErrorCode } from './errors.js'
export type { PanelContext, PanelSettings } from './context.js'
export type { CliIO } from '@arus/service'

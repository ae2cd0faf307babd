/**
 * @packageDocumentation
 * The Arus operator tool server (`arus-mcp`): every admin operation of the configured daemons
 * as an MCP tool over stdio, safe by construction (modes, two-step destructive calls, an audit
 * log, untrusted data labelled, no secret in a result) — docs/mcp.md.
 */
export { runCli, VERSION } from './cli.js'
export { McpConfig, loadMcpConfig, SERVICES, DEFAULT_PORTS } from './config.js'
export type { Service } from './config.js'
export { composeTools } from './compose.js'
export { listing } from './server.js'
export type { ToolDef, ToolClass } from './tool.js'

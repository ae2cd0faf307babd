import { Command, CommanderError } from 'commander'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { auditPath, composeTools } from './compose.js'
import { ConfigProblem, defaultConfigPath, loadMcpConfig } from './config.js'
import { doctor } from './doctor.js'
import { createAuditLog, createPlanner } from './safety.js'
import { buildMcpServer } from './server.js'

export const VERSION = '0.1.0'

export interface McpIO { stdout: (line: string) => void; stderr: (line: string) => void }
const processIO: McpIO = { stdout: (l) => process.stdout.write(`${l}\n`), stderr: (l) => process.stderr.write(`${l}\n`) }

/**
 * `arus-mcp [--config <path>] [--read-only] [--no-destructive]` serves MCP over stdio;
 * `--doctor [--login]` checks and exits. Exit codes (spec 2): 0 all good, 1 a configured
 * backend failed, 2 the config is unusable.
 */
export async function runCli (argv: string[], io: McpIO = processIO): Promise<number> {
  const program = new Command('arus-mcp')
    .description('Arus operator tool server: every admin operation as an MCP tool over stdio (docs/mcp.md)')
    .option('--config <path>', 'config file (owner-only permissions)', defaultConfigPath())
    .option('--doctor', 'validate the config, probe every backend\'s /healthz, print client snippets, exit')
    .option('--login', 'with --doctor: also log in once to each backend')
    .option('--read-only', 'only read tools (wins over everything)')
    .option('--no-destructive', 'no destructive tools')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s.trimEnd()), writeErr: (s) => io.stderr(s.trimEnd()) })
  try {
    program.parse(argv)
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2
    throw err
  }
  const o = program.opts<{ config: string; doctor?: boolean; login?: boolean; readOnly?: boolean; destructive: boolean }>()
  let config
  try {
    config = await loadMcpConfig(o.config)
  } catch (err) {
    if (err instanceof ConfigProblem) { io.stderr(`arus-mcp: ${err.message}`); return 2 }
    throw err
  }
  if (o.doctor) return doctor(config, o.config, { login: o.login === true, out: io.stdout })
  const modes = { readOnly: o.readOnly === true || config.readOnly, noDestructive: !o.destructive || config.noDestructive }
  const { tools, ctx, close } = await composeTools(config)
  const server = buildMcpServer({ tools, ctx, modes, planner: createPlanner(), audit: createAuditLog(auditPath(config)), version: VERSION })
  const transport = new StdioServerTransport()
  const done = new Promise<void>((resolve) => { transport.onclose = () => resolve() })
  await server.connect(transport)
  io.stderr(`arus-mcp ${VERSION}: serving ${tools.length} tools over stdio${modes.readOnly ? ' (read-only)' : modes.noDestructive ? ' (no destructive tools)' : ''}`)
  const stop = () => { void server.close() }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
  process.stdin.once('end', stop)
  await done
  await close()
  return 0
}

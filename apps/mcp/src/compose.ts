import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { createBackend, type Backend } from './backend.js'
import { configuredServices, defaultStateDir, type McpConfig, type Service } from './config.js'
import { loadRouteTables } from './routes.js'
import type { ToolContext, ToolDef } from './tool.js'
import { broadcasterTools } from './tools/broadcaster.js'
import { diagnoseTools } from './tools/diagnose.js'
import { docsTools } from './tools/docs.js'
import { libraryTools } from './tools/library.js'
import { panelTools } from './tools/panel.js'
import { resellerTools } from './tools/reseller.js'
import { serverTools } from './tools/server.js'

/** The repository's docs/ (the default docsDir). */
export const REPO_DOCS = fileURLToPath(new URL('../../../docs/', import.meta.url))

/** Every tool whose backend is configured (spec 2: only those are registered), the server tools with ssh and install blocks, diagnose and docs. */
export async function composeTools (config: McpConfig): Promise<{ tools: ToolDef[]; ctx: ToolContext; close(): Promise<void> }> {
  const tables = await loadRouteTables()
  const services = configuredServices(config)
  const backends: Partial<Record<Service, Backend>> = {}
  for (const s of services) backends[s] = createBackend(s, config[s]!, config)
  const groups: Record<Service, () => ToolDef[]> = {
    panel: () => panelTools(tables),
    broadcaster: () => broadcasterTools(tables),
    library: () => libraryTools(tables),
    reseller: () => resellerTools(tables)
  }
  // The server tools need a box to reach (ssh) and the deploy pack's place on it (install).
  const server = config.ssh && config.install ? serverTools() : []
  const tools = [...services.flatMap((s) => groups[s]()), ...server, ...diagnoseTools(), ...docsTools()]
  const ctx: ToolContext = { config, backends, stateDir: config.stateDir ?? defaultStateDir(), docsDir: config.docsDir ?? REPO_DOCS }
  return { tools, ctx, close: async () => { await Promise.all(Object.values(backends).map((b) => b.close())) } }
}

export const auditPath = (c: McpConfig): string => c.auditLog ?? join(c.stateDir ?? defaultStateDir(), 'audit.jsonl')

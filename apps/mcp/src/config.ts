import { readFile, stat } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { DAEMON_PORTS } from '@arus/service'

/**
 * The tool server's config file (spec 2 "Operator tool server": owner-only permissions;
 * blocks panel, broadcaster, reseller, library {url?, user, pass}, ssh, install, docsDir; only
 * the configured backends get tools). Ours beyond the spec: readOnly, noDestructive, auditLog,
 * stateDir (where minted publisher keys are written).
 */

export const SERVICES = ['panel', 'broadcaster', 'library', 'reseller'] as const
export type Service = typeof SERVICES[number]

/** Each service's loopback API port on its box (the daemons' defaults), for tunnels. */
export const DEFAULT_PORTS: Record<Service, number> = DAEMON_PORTS

const Backend = z.strictObject({
  url: z.url({ protocol: /^https?$/ }).optional().describe('The API base URL (https for a remote box; http only to loopback). Without it the tool server opens an SSH tunnel to the service\'s loopback port.'),
  user: z.string().min(1).max(128),
  pass: z.string().min(1).max(1024),
  port: z.number().int().min(1).max(65535).optional().describe('The service\'s port on its box, for the tunnel (default: the daemon\'s default)')
})
export type BackendConfig = z.infer<typeof Backend>

const SshHost = z.strictObject({ host: z.string().min(1), user: z.string().min(1).optional(), port: z.number().int().min(1).max(65535).optional(), keyPath: z.string().min(1).optional() })
const Ssh = z.strictObject({
  host: z.string().min(1),
  user: z.string().min(1),
  keyPath: z.string().min(1),
  port: z.number().int().min(1).max(65535).default(22),
  knownHosts: z.string().min(1).optional().describe('known_hosts file to check and record host keys in (default: ssh\'s own, ~/.ssh/known_hosts)'),
  hosts: z.record(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/), SshHost).optional().describe('More boxes, by name, for the server_* tools\' host argument')
})

export const McpConfig = z.strictObject({
  panel: Backend.optional(),
  broadcaster: Backend.optional(),
  library: Backend.optional(),
  reseller: Backend.optional(),
  ssh: Ssh.optional(),
  install: z.strictObject({
    repoDir: z.string().regex(/^\/[A-Za-z0-9_./-]{1,255}$/, 'an absolute path').describe('Where the deploy pack lives on the box (server_install copies this repository there)'),
    project: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/).default('arus').describe('Compose project name'),
    backupDir: z.string().regex(/^\/[A-Za-z0-9_./-]{1,255}$/).default('/var/backups/arus'),
    images: z.strictObject({ runtime: z.string().min(1).optional(), media: z.string().min(1).optional() }).optional().describe('Image tags (default arus:latest, arus-media:latest)'),
    base: z.string().min(1).optional().describe('BASE build argument for server_install and server_update (default: the official Node 20 slim image)')
  }).optional(),
  docsDir: z.string().min(1).optional(),
  readOnly: z.boolean().default(false),
  noDestructive: z.boolean().default(false),
  auditLog: z.string().min(1).optional(),
  stateDir: z.string().min(1).optional(),
  timeoutMs: z.number().int().min(500).max(300_000).default(15_000)
})
export type McpConfig = z.infer<typeof McpConfig>

/** A config problem: the message says what and where (exit code 2). */
export class ConfigProblem extends Error {
  constructor (message: string) { super(message); this.name = 'ConfigProblem' }
}

export const defaultConfigPath = (): string => join(homedir(), '.config', 'arus', 'mcp.json')
export const defaultStateDir = (): string => join(homedir(), '.local', 'state', 'arus-mcp')

/** Reads and checks the config file: owner-only permissions, valid JSON, the schema. */
export async function loadMcpConfig (path: string): Promise<McpConfig> {
  const info = await stat(path).catch(() => null)
  if (!info?.isFile()) throw new ConfigProblem(`config file ${path} does not exist`)
  if ((info.mode & 0o077) !== 0) {
    throw new ConfigProblem(`config file ${path} is readable by others (mode ${(info.mode & 0o777).toString(8)}): it holds passwords; run chmod 600 ${path}`)
  }
  let json: unknown
  try { json = JSON.parse(await readFile(path, 'utf8')) } catch { throw new ConfigProblem(`config file ${path} is not valid JSON`) }
  const r = McpConfig.safeParse(json)
  if (!r.success) {
    const issues = r.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`)
    throw new ConfigProblem(`config file ${path}: ${issues.join('; ')}`)
  }
  for (const s of SERVICES) {
    const b = r.data[s]
    if (b && b.url === undefined && r.data.ssh === undefined) throw new ConfigProblem(`config file ${path}: ${s} has no url and there is no ssh block to tunnel through`)
    if (b?.url !== undefined) {
      const u = new URL(b.url)
      if (u.protocol === 'http:' && !['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)) throw new ConfigProblem(`config file ${path}: ${s}.url must be https unless it points at loopback`)
    }
  }
  return r.data
}

/** The services with a config block, in the spec's order. */
export function configuredServices (c: McpConfig): Service[] {
  return SERVICES.filter((s) => c[s] !== undefined)
}

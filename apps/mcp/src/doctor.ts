import { BackendError, createBackend } from './backend.js'
import { configuredServices, type McpConfig } from './config.js'

/**
 * --doctor (spec 2): the config is valid (else exit 2 before this runs), each configured
 * backend's /healthz answers through its url or tunnel (exit 1 when one does not), and the
 * client snippets to paste. A plain doctor run never logs in; --login spends exactly one real
 * login per service.
 */
export async function doctor (config: McpConfig, configPath: string, init: { login: boolean; out: (line: string) => void }): Promise<number> {
  const { out } = init
  let failed = 0
  const services = configuredServices(config)
  out(`config ${configPath}: ok (${services.length === 0 ? 'no backends' : services.join(', ')}${config.ssh ? `; ssh ${config.ssh.user}@${config.ssh.host}` : ''})`)
  for (const s of services) {
    const b = createBackend(s, config[s]!, config)
    try {
      const h = await b.health()
      if (h.status !== 200) { failed++; out(`${s}: /healthz answered ${h.status}`); continue }
      out(`${s}: /healthz ok at ${b.baseUrl() ?? '?'}`)
      if (init.login) {
        await b.login()
        out(`${s}: login as ${config[s]!.user} ok`)
      }
    } catch (err) {
      failed++
      out(`${s}: FAILED — ${err instanceof BackendError ? err.message : (err as Error).message}`)
    } finally {
      await b.close()
    }
  }
  out('')
  out('Client configuration (Claude Desktop, Cursor and other MCP clients):')
  out(JSON.stringify({ mcpServers: { arus: { command: 'arus-mcp', args: ['--config', configPath] } } }, null, 2))
  out('Read-only variant: add "--read-only" to args.')
  return failed === 0 ? 0 : 1
}

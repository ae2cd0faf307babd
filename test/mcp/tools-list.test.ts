import { afterAll, describe, expect, it } from 'vitest'
import { cleanupAll } from '@arus/testkit'
import { startMcp } from './harness.js'

// Issue 17, Done means 1 and 2 (partly): tools/list through the official MCP client over stdio
// equals the spec's table for the configured groups (spec 2 "Tool groups"), every tool carries
// its annotations, and the modes hide and refuse. No daemon needs to run: backends are only
// reached by a call.

/** The spec's table, by group and class. */
const SPEC = {
  panel: {
    R: ['panel_status', 'panel_observability', 'panel_analytics', 'panel_list_users', 'panel_get_user', 'panel_list_devices', 'panel_list_streams', 'panel_list_packages', 'panel_get_package', 'panel_list_sources', 'panel_source_channels', 'panel_list_categories', 'panel_vod_config', 'panel_list_publishers', 'panel_list_reports', 'panel_list_alerts', 'panel_list_admins',
      'panel_key_schedule'], // beyond the spec's table: login key schedules (issue 40)
    W: ['panel_create_user', 'panel_set_user_password', 'panel_set_user_status', 'panel_set_max_devices', 'panel_logout_all', 'panel_grant', 'panel_set_user_packages', 'panel_add_stream', 'panel_set_stream_meta', 'panel_set_stream_art', 'panel_add_package', 'panel_set_package', 'panel_add_source', 'panel_set_source', 'panel_sync_source', 'panel_set_category', 'panel_rename_category', 'panel_set_vod_config', 'panel_add_publisher', 'panel_set_publisher_scopes', 'panel_set_publisher_status', 'panel_ack_report', 'panel_resolve_report', 'panel_test_notify', 'panel_add_admin', 'panel_set_admin_password'],
    D: ['panel_delete_user', 'panel_revoke_device', 'panel_revoke_grant', 'panel_delete_stream', 'panel_delete_package', 'panel_delete_source', 'panel_merge_categories', 'panel_delete_category', 'panel_remove_publisher', 'panel_remove_admin',
      'panel_reset_legacy_users'] // beyond the spec's table (issue 40)
  },
  broadcaster: {
    R: ['broadcaster_health', 'broadcaster_status', 'broadcaster_capabilities', 'broadcaster_list_channels', 'broadcaster_get_channel', 'broadcaster_channel_logs', 'broadcaster_incidents', 'broadcaster_analytics', 'broadcaster_list_admins'],
    W: ['broadcaster_add_channel', 'broadcaster_update_channel', 'broadcaster_start_channel', 'broadcaster_add_admin', 'broadcaster_set_admin_password'],
    D: ['broadcaster_stop_channel', 'broadcaster_rotate_channel', 'broadcaster_remove_channel', 'broadcaster_remove_admin']
  },
  reseller: {
    R: ['reseller_status', 'reseller_system', 'reseller_list_principals', 'reseller_get_principal', 'reseller_ledger', 'reseller_list_accounts', 'reseller_get_account', 'reseller_trials', 'reseller_ops_status'],
    W: ['reseller_add_principal', 'reseller_set_principal_password', 'reseller_set_principal_limits', 'reseller_grant_credits'],
    D: ['reseller_set_principal_status']
  },
  library: {
    R: ['library_status', 'library_list_titles', 'library_get_title', 'library_title_logs'],
    W: ['library_add_title', 'library_set_title'],
    D: ['library_reingest_title', 'library_delete_title']
  },
  server: {
    R: ['server_preflight', 'server_status', 'server_logs', 'server_disk', 'server_list_backups'],
    W: ['server_backup', 'server_install'],
    D: ['server_set_env', 'server_restart', 'server_restore', 'server_sysctl', 'server_update']
  },
  repeater: { R: ['repeater_status'], W: [], D: [] },
  diagnose: { R: ['diagnose_healthz', 'diagnose_symptom'], W: [], D: [] },
  docs: { R: ['docs_search'], W: [], D: [] }
} as const
type Group = keyof typeof SPEC
/** Tools that reach beyond the operator's own services. */
const OPEN_WORLD = new Set(['panel_sync_source', 'panel_add_source', 'panel_test_notify', 'server_install', 'server_update'])

const backend = { url: 'http://127.0.0.1:9', user: 'op', pass: 'not-used-here' }
const names = (groups: Group[], classes: Array<'R' | 'W' | 'D'> = ['R', 'W', 'D']) => groups.flatMap((g) => classes.flatMap((c) => [...SPEC[g][c]])).sort()
const classOf = (name: string) => (['R', 'W', 'D'] as const).find((c) => Object.values(SPEC).some((g) => (g[c] as readonly string[]).includes(name)))

afterAll(async () => { await cleanupAll() })

describe('tools/list', () => {
  it('panel + broadcaster: exactly the spec\'s tools for those groups, each with its annotations and a strict input schema', async (t) => {
    const mcp = await startMcp(t, { panel: backend, broadcaster: backend })
    const { tools } = await mcp.client.listTools()
    expect(tools.map((x) => x.name).sort()).toEqual(names(['panel', 'broadcaster', 'diagnose', 'docs']))
    for (const tool of tools) {
      const klass = classOf(tool.name)
      expect(tool.annotations, tool.name).toMatchObject({
        readOnlyHint: klass === 'R',
        destructiveHint: klass === 'D',
        openWorldHint: OPEN_WORLD.has(tool.name)
      })
      expect(tool.inputSchema.type, tool.name).toBe('object')
      expect((tool.inputSchema as { additionalProperties?: unknown }).additionalProperties, `${tool.name} refuses extra keys`).toBe(false)
      if (klass === 'D') expect(Object.keys(tool.inputSchema.properties ?? {}), tool.name).toContain('confirmToken')
      if (klass === 'D') expect(tool.outputSchema, tool.name).toBeUndefined()
    }
    // List and get tools describe their output.
    for (const n of ['panel_status', 'panel_list_users', 'panel_list_streams', 'broadcaster_list_channels', 'diagnose_healthz']) expect(tools.find((x) => x.name === n)!.outputSchema, n).toBeDefined()
    const idem = tools.filter((x) => x.annotations?.idempotentHint === true).map((x) => x.name)
    expect(idem).toEqual(expect.arrayContaining(['panel_set_user_status', 'panel_set_max_devices', 'broadcaster_update_channel', 'panel_status']))
    expect(idem).not.toContain('panel_create_user')
    // The stream art tool takes a file path, never bytes in the arguments.
    expect(Object.keys(tools.find((x) => x.name === 'panel_set_stream_art')!.inputSchema.properties ?? {}).sort()).toEqual(['file', 'kind', 'streamId'])
  })

  it('with the library and reseller configured their groups appear too; only configured groups are registered', async (t) => {
    const all = await startMcp(t, { panel: backend, broadcaster: backend, library: backend, reseller: backend })
    expect((await all.client.listTools()).tools.map((x) => x.name).sort()).toEqual(names(['panel', 'broadcaster', 'library', 'reseller', 'diagnose', 'docs']))
    // The server tools (and the repeater's) come with an ssh block and an install block.
    const ssh = { host: '127.0.0.1', user: 'root', keyPath: '/nonexistent/key', port: 22 }
    const boxed = await startMcp(t, { panel: backend, ssh, install: { repoDir: '/opt/arus' } })
    const boxedTools = (await boxed.client.listTools()).tools
    expect(boxedTools.map((x) => x.name).sort()).toEqual(names(['panel', 'server', 'repeater', 'diagnose', 'docs']))
    for (const tool of boxedTools.filter((x) => x.name.startsWith('server_') && x.name !== 'server_install')) expect(Object.keys(tool.inputSchema.properties ?? {}), tool.name).toContain('host')
    expect(Object.keys(boxedTools.find((x) => x.name === 'server_install')!.inputSchema.properties ?? {})).not.toContain('host')
    const sshOnly = await startMcp(t, { panel: backend, ssh })
    expect((await sshOnly.client.listTools()).tools.some((x) => x.name.startsWith('server_'))).toBe(false)
    const lib = await startMcp(t, { library: backend })
    expect((await lib.client.listTools()).tools.map((x) => x.name).sort()).toEqual(names(['library', 'diagnose', 'docs']))
    const unconfigured = await lib.call('panel_status')
    expect(unconfigured.isError).toBe(true)
    expect(unconfigured.text).toMatch(/unknown tool panel_status/)
    // A server tool refuses a forbidden key before anything reaches the box (no plan either).
    for (const key of ['PUBLISHER_KEY', 'PANEL_PUBKEY', 'WEBHOOK_SECRET', 'REPORTS_MSGR_BOT_TOKEN', 'REPORTS_WEBHOOK_URL', 'PANEL_ADMIN_PASS']) {
      const plan = await boxed.json('server_set_env', { service: 'panel', key, value: 'x' })
      const r = await boxed.call('server_set_env', { service: 'panel', key, value: 'x', confirmToken: plan.confirmToken })
      expect(r.isError, key).toBe(true)
      expect(r.text, key).toMatch(/refused: .* secret, wiring or set by the Compose stack/)
    }
  })

  it('--read-only lists only read tools and refuses a direct call of a write tool; --no-destructive hides every destructive tool', async (t) => {
    const ro = await startMcp(t, { panel: backend, broadcaster: backend }, ['--read-only'])
    expect((await ro.client.listTools()).tools.map((x) => x.name).sort()).toEqual(names(['panel', 'broadcaster', 'diagnose', 'docs'], ['R']))
    for (const name of ['panel_create_user', 'panel_delete_user']) {
      const r = await ro.call(name, { username: 'x', password: 'y' })
      expect(r.isError, name).toBe(true)
      expect(r.text, name).toMatch(/read-only/)
    }
    const nd = await startMcp(t, { panel: backend, broadcaster: backend }, ['--no-destructive'])
    expect((await nd.client.listTools()).tools.map((x) => x.name).sort()).toEqual(names(['panel', 'broadcaster', 'diagnose', 'docs'], ['R', 'W']))
    const refused = await nd.call('broadcaster_remove_channel', { channelId: 'news' })
    expect(refused).toMatchObject({ isError: true })
    expect(refused.text).toMatch(/--no-destructive/)
    // The config keys do the same; read-only wins over everything.
    const both = await startMcp(t, { panel: backend, readOnly: true, noDestructive: false })
    expect((await both.client.listTools()).tools.every((x) => x.annotations?.readOnlyHint === true)).toBe(true)
    expect((await ro.audit()).filter((e) => e.status === 'refused').map((e) => e.tool)).toEqual(['panel_create_user', 'panel_delete_user'])
  })
})

describe('tool arguments', () => {
  it("name each concept once across every tool's input schema (username, streamId, channelId, ...), never after a route's path parameter; the old names still work", async (t) => {
    const ssh = { host: '127.0.0.1', user: 'root', keyPath: '/nonexistent/key', port: 22 }
    const mcp = await startMcp(t, { panel: backend, broadcaster: backend, library: backend, reseller: backend, ssh, install: { repoDir: '/opt/arus' } })
    const { tools } = await mcp.client.listTools()
    const args = new Map(tools.map((x) => [x.name, Object.keys(x.inputSchema.properties ?? {})]))
    expect(args.size).toBeGreaterThan(100)
    // No tool names an argument after a route's own path parameter or a bare record name.
    const routeNames = [...args].flatMap(([tool, keys]) => keys.filter((k) => ['u', 'id', 'name', 'acct'].includes(k)).map((k) => `${tool}.${k}`))
    expect(routeNames).toEqual([])
    // A reseller principal is a principal (a panel user is the username), in every reseller tool.
    expect([...args].filter(([tool, keys]) => tool.startsWith('reseller_') && keys.includes('username')).map(([tool]) => tool)).toEqual([])
    const expected: Record<string, string[]> = {
      panel_create_user: ['username'], panel_get_user: ['username'], panel_list_devices: ['username'], panel_revoke_device: ['username', 'deviceId'],
      panel_grant: ['username', 'streamId'], panel_revoke_grant: ['username', 'streamId'], panel_add_stream: ['streamId'], panel_set_stream_meta: ['streamId'],
      panel_delete_stream: ['streamId'], panel_set_stream_art: ['streamId'], panel_get_package: ['package'], panel_add_package: ['package'],
      panel_sync_source: ['source'], panel_add_source: ['source'], panel_add_publisher: ['publisher'], panel_set_publisher_scopes: ['publisher'],
      panel_ack_report: ['reportId'], panel_add_admin: ['admin'], panel_remove_admin: ['admin'],
      broadcaster_add_channel: ['channelId'], broadcaster_get_channel: ['channelId'], broadcaster_remove_channel: ['channelId'], broadcaster_add_admin: ['admin'],
      library_add_title: ['titleId'], library_get_title: ['titleId'], library_delete_title: ['titleId'],
      reseller_add_principal: ['principal'], reseller_get_principal: ['principal'], reseller_set_principal_status: ['principal'], reseller_ledger: ['principal', 'account'],
      reseller_get_account: ['account']
    }
    for (const [tool, keys] of Object.entries(expected)) expect(args.get(tool), tool).toEqual(expect.arrayContaining(keys))

    // The route's old names are still read (docs/mcp.md): the call gets past validation to the
    // (unreachable) backend, or to the plan of a destructive tool; giving both names is refused.
    const old = await mcp.call('panel_get_user', { u: 'alice' })
    expect(old.isError).toBe(true)
    expect(old.text).not.toMatch(/invalid arguments/)
    const plan = await mcp.json('broadcaster_remove_channel', { id: 'news' })
    expect(plan.plan).toContain('DELETE /api/channels/news')
    expect((await mcp.call('broadcaster_remove_channel', { channelId: 'news', confirmToken: plan.confirmToken })).text).not.toMatch(/not applied/)
    const both = await mcp.call('panel_get_user', { u: 'alice', username: 'bob' })
    expect([both.isError, both.text]).toEqual([true, expect.stringMatching(/invalid arguments for panel_get_user/)])
  })
})

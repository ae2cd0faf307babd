import { chmod, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlayer, loginWithRetry } from '@arus/sdk'
import { ARUS_BINS, cleanupAll, collectSecrets, createStack, decodeWithFfmpeg, findSecrets, LIGHT_CHANNEL, runBin, tmpDir, waitFor, type Stack } from '@arus/testkit'
import { scanSeen, SEEN, startMcp, type McpHandle } from './harness.js'

// Issue 17, Done means 2-5 and 7, with the official MCP client over stdio and real daemons on a
// local testnet: a scenario driven only through tool calls ends with an SDK viewer playing;
// destructive tools apply only with their plan token; malformed arguments are isError and the
// server stays up; every tool result and audit line of this file is scanned for secrets; the
// doctor's exit codes.

const ctx = { onTestFinished: () => {} }
let stack: Stack
let mcp: McpHandle
const USER_PW = 'viewer-secret-pw-1'
const MCP_PW = 'mcp-admin-secret-pw'

beforeAll(async () => {
  stack = await createStack(ctx, { broadcasters: 1 })
  const bc = stack.broadcasters[0]!
  // The tool server's own panel admin (rotating it below must not end the test's own session).
  await stack.panel.cli(['add-admin', 'mcp'], `${MCP_PW}\n`)
  mcp = await startMcp(ctx, {
    panel: { url: stack.panel.adminUrl, user: 'mcp', pass: MCP_PW },
    broadcaster: { url: bc.controlUrl, user: bc.operator.name, pass: bc.operator.password }
  })
}, 120_000)

afterAll(async () => { await cleanupAll() }, 60_000)

describe('the tool server against real daemons', () => {
  it('create a user, add a stream, grant it, add and start a channel, list reports, rename a category — then a viewer plays', async (t) => {
    const user = await mcp.json('panel_create_user', { username: 'alice', password: USER_PW })
    expect(user).toMatchObject({ username: 'alice', status: 'active' })
    const added = await mcp.json('panel_add_stream', { streamId: 'extra', title: 'Extra', category: ['Misc'], key: 'ab'.repeat(32) })
    expect(added.key).toMatch(/redacted/)
    const generated = await mcp.json('panel_add_stream', { streamId: 'extra2', title: 'Extra 2' })
    expect(generated.key).toMatch(/^[0-9a-f]{64}$/)
    await mcp.json('panel_grant', { username: 'alice', streamId: 'extra' })
    await mcp.json('broadcaster_add_channel', { channelId: 'live', title: 'Live', category: ['News'], ...LIGHT_CHANNEL })
    await mcp.json('broadcaster_start_channel', { channelId: 'live' })
    await waitFor(async () => (await mcp.json('broadcaster_get_channel', { channelId: 'live' })).registered === true, { timeoutMs: 30_000, message: 'channel registered' })
    await mcp.json('panel_grant', { username: 'alice', streamId: 'live' })
    const reports = await mcp.call('panel_list_reports', {})
    expect(reports.isError).toBe(false)
    expect(reports.text).toMatch(/<untrusted-data source="panel_list_reports">/)
    expect(reports.structured).toHaveProperty('reports')
    const renamed = await mcp.json('panel_rename_category', { from: 'News', to: 'Headlines' })
    expect(renamed.changed).toEqual(['live'])
    const streams = await mcp.call('panel_list_streams', { category: 'headlines', idsOnly: true })
    expect(streams.structured).toEqual({ streams: ['live'], total: 1 })
    const alice = await mcp.call('panel_get_user', { username: 'alice' })
    expect(alice.structured.grants).toEqual(['extra', 'live'])

    const player = createPlayer({ panelPubKey: stack.panel.panelKey, storeDir: tmpDir(t, 'arus-mcp-viewer-'), swarm: { bootstrap: stack.testnet!.bootstrap } })
    t.onTestFinished(() => player.stop())
    await player.connect()
    const items = await loginWithRetry(player, 'alice', USER_PW, { attempts: 40, delayMs: 500 })
    expect(items.some((i: { id: string; category?: string[] }) => i.id === 'live')).toBe(true)
    const decoded = await decodeWithFfmpeg((await player.resolve('live')).url, 2, { timeoutMs: 60_000 })
    expect(decoded.code, decoded.stderr).toBe(0)
  })

  it('logs in again once when the daemon ends its session (401)', async () => {
    await mcp.json('panel_status')
    const metrics = async () => Number(/arus_panel_admin_logins_total\{result="ok"\} (\d+)/.exec((await stack.panel.call('GET', '/metrics')).body as string)?.[1] ?? 0)
    const before = await metrics()
    // The same password again: the admin's tokenVersion moves on, so the tool server's token is refused.
    await stack.panel.api('POST', '/api/admins/mcp/password', { password: MCP_PW })
    expect((await mcp.json('panel_status')).panelKey).toBe(stack.panel.panelKey)
    expect(await metrics()).toBe(before + 1)
  })

  it('grant lists over 12 ids are summarized unless full: true', async () => {
    for (let i = 0; i < 13; i++) await mcp.json('panel_add_stream', { streamId: `bulk${i}` })
    for (let i = 0; i < 13; i++) await mcp.json('panel_grant', { username: 'alice', streamId: `bulk${i}` })
    const short = await mcp.call('panel_get_user', { username: 'alice' })
    expect(short.structured.grants).toMatchObject({ count: 15, sample: expect.any(Array) })
    expect(short.structured.grants.sample).toHaveLength(12)
    const long = await mcp.call('panel_get_user', { username: 'alice', full: true })
    expect(long.structured.grants).toHaveLength(15)
  })

  it('a destructive tool changes nothing without a valid plan token; the token binds the exact arguments and is spent once', async () => {
    await mcp.json('panel_create_user', { username: 'bob', password: 'bob-password-1' })
    const plan = await mcp.json('panel_delete_user', { username: 'bob' })
    expect(plan.plan).toMatch(/DELETE \/api\/users\/bob/)
    expect(await stack.panel.call('GET', '/api/users/bob')).toMatchObject({ status: 200 })
    const forged = await mcp.call('panel_delete_user', { username: 'bob', confirmToken: `${Date.now() + 60_000}.${'A'.repeat(43)}` })
    expect(forged).toMatchObject({ isError: true })
    const otherArgs = await mcp.call('panel_delete_user', { username: 'alice', confirmToken: plan.confirmToken })
    expect(otherArgs.isError).toBe(true)
    expect(otherArgs.text).toMatch(/other arguments/)
    const otherTool = await mcp.call('panel_delete_stream', { streamId: 'bob', confirmToken: plan.confirmToken })
    expect(otherTool.isError).toBe(true)
    expect((await stack.panel.call('GET', '/api/users/bob')).status).toBe(200)
    expect((await stack.panel.call('GET', '/api/users/alice')).status).toBe(200)
    expect((await mcp.call('panel_delete_user', { username: 'bob', confirmToken: plan.confirmToken })).isError).toBe(false)
    expect((await stack.panel.call('GET', '/api/users/bob')).status).toBe(404)
    const replay = await mcp.call('panel_delete_user', { username: 'bob', confirmToken: plan.confirmToken })
    expect(replay.text).toMatch(/already used/)
    // An actionable next step from the daemon's refusal.
    const stopPlan = await mcp.json('broadcaster_remove_channel', { channelId: 'live' })
    const running = await mcp.call('broadcaster_remove_channel', { channelId: 'live', confirmToken: stopPlan.confirmToken })
    expect(running.isError).toBe(true)
    expect(running.text).toMatch(/call broadcaster_stop_channel/)
    const audit = await mcp.audit()
    expect(audit.filter((e) => e.tool === 'panel_delete_user').map((e) => e.status)).toEqual(['planned', 'refused', 'refused', 'ok', 'refused'])
  })

  it('malformed arguments are isError with the validation message and the server stays up', async () => {
    const bad: Array<[string, Record<string, unknown>, RegExp]> = [
      ['panel_create_user', { username: 42, password: 'x' }, /username/],
      ['panel_create_user', { username: 'carol', password: 'carol-pw', extra: true }, /extra|unrecognized/i],
      ['panel_set_stream_meta', { streamId: 'live', category: '["News"]' }, /category/],
      ['broadcaster_add_channel', { channelId: 'x'.repeat(100_000), input: 'test' }, /channelId/],
      ['panel_set_stream_art', { streamId: 'live', kind: 'poster', file: 'relative/poster.png' }, /absolute/],
      ['panel_set_stream_art', { streamId: 'live', kind: 'poster', file: '/etc/passwd' }, /image file/],
      ['panel_list_streams', { limit: '10' }, /limit/],
      ['panel_delete_user', { username: { toString: 'x' } }, /username/]
    ]
    for (const [tool, args, msg] of bad) {
      const r = await mcp.call(tool, args)
      expect(r.isError, tool).toBe(true)
      expect(r.text, tool).toMatch(/^invalid arguments/)
      expect(r.text, tool).toMatch(msg)
      expect(r.structured, tool).toBeUndefined()
    }
    // An oversized or non-image art file is refused before anything is sent.
    const big = join(mcp.dir, 'big.png')
    await writeFile(big, Buffer.alloc(10 * 1024 * 1024 + 1))
    expect((await mcp.call('panel_set_stream_art', { streamId: 'live', kind: 'poster', file: big })).text).toMatch(/at most 10 MiB/)
    expect((await mcp.json('panel_status')).panelKey).toBe(stack.panel.panelKey)
  })

  it('diagnose, docs and the prompts', async () => {
    const health = await mcp.json('diagnose_healthz')
    expect(health.services.panel.ok).toBe(true)
    expect(health.services.broadcaster.ok).toBe(true)
    const symptom = await mcp.json('diagnose_symptom', { symptom: 'viewers cannot log in' })
    expect(symptom.matches[0].tools.length).toBeGreaterThan(0)
    const docs = await mcp.json('docs_search', { query: 'backup restore volume' })
    expect(docs.results[0].path).toBe('deploy.md')
    const page = await mcp.client.readResource({ uri: docs.results[0].uri })
    expect((page.contents[0] as { text: string }).text).toMatch(/# Deploying Arus/)
    await expect(mcp.client.readResource({ uri: 'mcp://svc/docs/../package.json' })).rejects.toThrow()
    expect((await mcp.client.readResource({ uri: 'mcp://svc/guide' })).contents[0]).toHaveProperty('text')
    const prompts = (await mcp.client.listPrompts()).prompts.map((p) => p.name).sort()
    expect(prompts).toEqual(['expose-dashboards', 'incident-triage', 'migrate-a-channel-source', 'monthly-maintenance', 'new-site-install', 'onboard-a-reseller'])
    const triage = await mcp.client.getPrompt({ name: 'incident-triage', arguments: { symptom: 'news buffers' } })
    expect((triage.messages[0]!.content as { text: string }).text).toMatch(/news buffers/)
  })

  it('doctor: 0 when every backend answers, 1 when one does not, 2 for an unusable or readable config; --login logs in once', async () => {
    const doctor = (path: string, extra: string[] = []) => runBin(ARUS_BINS.mcp, ['--doctor', '--config', path, ...extra], { timeoutMs: 60_000 })
    const ok = await doctor(mcp.configPath)
    expect(ok.code, ok.stdout + ok.stderr).toBe(0)
    expect(ok.stdout).toMatch(/"mcpServers"/)
    const before = (await stack.panel.call('GET', '/metrics')).body as string
    const logins = (s: string) => Number(/arus_panel_admin_logins_total\{result="ok"\} (\d+)/.exec(s)?.[1] ?? 0)
    expect(logins((await stack.panel.call('GET', '/metrics')).body as string)).toBe(logins(before))
    const withLogin = await doctor(mcp.configPath, ['--login'])
    expect(withLogin.code).toBe(0)
    // --login spends exactly one real login per service.
    expect(logins((await stack.panel.call('GET', '/metrics')).body as string)).toBe(logins(before) + 1)
    expect(withLogin.stdout).toMatch(/panel: login as .* ok/)
    const down = join(mcp.dir, 'down.json')
    const config = JSON.parse(await readFile(mcp.configPath, 'utf8'))
    await writeFile(down, JSON.stringify({ ...config, broadcaster: { ...config.broadcaster, url: 'http://127.0.0.1:9' } }), { mode: 0o600 })
    expect((await doctor(down)).code).toBe(1)
    const broken = join(mcp.dir, 'broken.json')
    await writeFile(broken, '{"panel": {"user": 1}}', { mode: 0o600 })
    const b = await doctor(broken)
    expect(b.code).toBe(2)
    expect(b.stderr).toMatch(/panel\.user/)
    const open = join(mcp.dir, 'open.json')
    await writeFile(open, JSON.stringify(config))
    await chmod(open, 0o644)
    const o = await doctor(open)
    expect(o.code).toBe(2)
    expect(o.stderr).toMatch(/readable by others/)
    expect((await doctor(join(mcp.dir, 'missing.json'))).code).toBe(2)
  })

  it('no secret in any tool result or audit line; a planted one is found', async () => {
    const secrets = collectSecrets({ panel: stack.panel.dataDir, broadcaster: stack.broadcasters[0]!.dataDir }, [
      { kind: 'panel admin password', value: stack.panel.admin.password },
      { kind: 'tool server admin password', value: MCP_PW },
      { kind: 'control password', value: stack.broadcasters[0]!.operator.password },
      { kind: 'user password', value: USER_PW },
      { kind: 'user password', value: 'bob-password-1' },
      { kind: 'supplied stream key', value: 'ab'.repeat(32) }
    ])
    const audit = await readFile(mcp.auditPath, 'utf8')
    expect(audit.split('\n').length).toBeGreaterThan(30)
    await scanSeen(secrets, findSecrets)
    // The publisher's minted key went to a 0600 file, not to the result.
    const pub = await mcp.json('panel_add_publisher', { publisher: 'site9', scopes: ['x*'] })
    expect(pub.secretKeyFile).toMatch(/publishers\/site9\.key$/)
    const key = (await readFile(pub.secretKeyFile, 'utf8')).trim()
    expect(key).toMatch(/^[0-9a-f]{128}$/)
    expect(SEEN.map((x) => x.text).join('\n')).not.toContain(key)
    expect(await readFile(mcp.auditPath, 'utf8')).not.toContain(key)
  })
})

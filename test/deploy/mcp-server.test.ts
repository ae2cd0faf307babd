import { access, chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BROADCASTER_TEST_ENV, cleanupAll, createTestnet, findSecrets, freePort, PANEL_TEST_ENV, startSshd, tmpDir, type Sshd, type Testnet } from '@arus/testkit'
import { scanSeen, startMcp, type McpHandle } from '../mcp/harness.js'
import { DOCKER, must, run } from './docker.js'
import { buildImages, IMAGE, MEDIA } from './images.js'

// Issue 17, the server tools on the deploy pack's stack (a real Docker engine, a real sshd on
// 127.0.0.1 with throwaway keys; the "box" is this machine): server_install copies the deploy
// pack, builds, initializes and starts the site; the panel and broadcaster tools reach it
// through SSH tunnels; status, logs, disk, backups, set-env (refusals, a config check that
// reverts, a recreate that applies), restore's refusal, update's dry run, restart, sysctl's plan;
// repeater_status on the stack without a repeater, then with one added by server_install.

const ctx = { onTestFinished: () => {} }
const PROJECT = `arusmcp${process.pid}`
let testnet: Testnet
let sshd: Sshd
let mcp: McpHandle
let repoDir: string
let ports: { panel: number; broadcaster: number }

async function confirm (name: string, args: Record<string, unknown>) {
  const plan = await mcp.json(name, args)
  expect(plan.confirmToken, name).toEqual(expect.any(String))
  return mcp.call(name, { ...args, confirmToken: plan.confirmToken })
}

beforeAll(async () => {
  const { base } = await buildImages()
  testnet = await createTestnet(ctx)
  sshd = await startSshd(ctx)
  ports = { panel: await freePort(), broadcaster: await freePort() }
  repoDir = join(tmpDir(ctx, 'arus-box-'), 'arus')
  const backupDir = tmpDir(ctx, 'arus-box-bk-')
  await chmod(backupDir, 0o755)
  // The operator's site settings, made before the install (site-init keeps existing env files).
  await mkdir(join(repoDir, 'docker', 'env'), { recursive: true, mode: 0o700 })
  const lines = (o: Record<string, string>) => Object.entries(o).map(([k, v]) => `${k}=${v}`).join('\n') + '\n'
  await writeFile(join(repoDir, 'docker/env/panel.env'), lines({ ...PANEL_TEST_ENV, BOOTSTRAP: testnet.bootstrapString, ADMIN_PORT: String(ports.panel) }), { mode: 0o600 })
  await writeFile(join(repoDir, 'docker/env/broadcaster.env'), lines({ ...BROADCASTER_TEST_ENV, BOOTSTRAP: testnet.bootstrapString, CONTROL_PORT: String(ports.broadcaster) }), { mode: 0o600 })
  mcp = await startMcp(ctx, {
    ssh: { host: sshd.host, user: sshd.user, keyPath: sshd.keyPath, port: sshd.port, knownHosts: sshd.knownHosts, hosts: { box2: { host: '127.0.0.1' } } },
    install: { repoDir, project: PROJECT, backupDir, images: { runtime: IMAGE, media: MEDIA }, base },
    timeoutMs: 60_000
  })
}, 1_200_000)

afterAll(async () => {
  // With the repeater overlay once it was added: `down -v` removes the volumes of the files named.
  const withRepeater = await access(join(repoDir, 'docker/env/repeater.env')).then(() => true, () => false)
  const files = ['compose.yaml', ...(withRepeater ? ['compose.repeater.yaml'] : [])].flatMap((f) => ['-f', join(repoDir, 'docker', f)])
  await run('docker-compose', ['-p', PROJECT, ...files, 'down', '-v', '--remove-orphans', '-t', '10'], { env: { ARUS_ENV_DIR: join(repoDir, 'docker/env'), ARUS_IMAGE: IMAGE, ARUS_MEDIA_IMAGE: MEDIA }, timeoutMs: 120_000 })
  await rm(repoDir, { recursive: true, force: true })
  await cleanupAll()
}, 180_000)

describe('server tools on the deploy pack', () => {
  it('installs the site over SSH and runs it; the backend tools reach it through tunnels', async () => {
    const pre = await mcp.call('server_preflight')
    expect(pre.structured).toMatchObject({ installed: false, docker: expect.any(String), compose: expect.any(String) })
    // The lane built these images from this very tree a moment ago: the install reuses them.
    const installed = await mcp.json('server_install', { build: false })
    expect(installed).toMatchObject({ repoDir, project: PROJECT })
    expect(JSON.stringify(installed)).not.toMatch(/PUBLISHER_KEY=|:[A-Za-z0-9_-]{24}\b/)
    expect((await mcp.call('server_preflight', { host: 'box2' })).structured.installed).toBe(true)
    const deadline = Date.now() + 90_000
    let status = await mcp.call('server_status')
    while (Date.now() < deadline && !(status.structured.containers.length === 2 && status.structured.containers.every((c: { healthy: boolean }) => c.healthy))) {
      await new Promise((r) => setTimeout(r, 1000))
      status = await mcp.call('server_status')
    }
    expect(status.structured.containers.map((c: { service: string }) => c.service).sort()).toEqual(['broadcaster', 'panel'])
    expect(status.structured.containers.every((c: { healthy: boolean }) => c.healthy)).toBe(true)

    // The admins site-init made live in the credentials file on the box; the backend tools tunnel in.
    const creds = Object.fromEntries((await readFile(join(repoDir, 'docker/env/credentials'), 'utf8')).trim().split('\n').map((l) => { const [k, v = ''] = l.split('='); const [user = '', pass = ''] = v.split(':'); return [k, { user, pass }] }))
    const config = JSON.parse(await readFile(mcp.configPath, 'utf8'))
    const tools = await startMcp(ctx, { ...config, panel: { ...creds.PANEL_ADMIN, port: ports.panel }, broadcaster: { ...creds.BROADCASTER_ADMIN, port: ports.broadcaster } })
    const panelStatus = await tools.json('panel_status')
    expect(panelStatus.panelKey).toMatch(/^[0-9a-f]{64}$/)
    expect((await tools.json('broadcaster_status')).panel).toMatchObject({ configured: true, publisher: 'site' })
    const health = await tools.json('diagnose_healthz')
    expect(Object.values(health.services).every((s: any) => s.ok)).toBe(true)
  })

  it('logs, disk, backups and the restore refusal', async () => {
    const logs = await mcp.call('server_logs', { service: 'panel', lines: 50 })
    expect(logs.structured.lines.some((l: string) => l.includes('panel.ready'))).toBe(true)
    const disk = await mcp.call('server_disk')
    expect(disk.structured.filesystems[0]).toMatchObject({ path: '/', freeBytes: expect.any(Number) })
    const backup = await mcp.json('server_backup', { services: ['panel'] })
    expect(backup.archives).toHaveLength(1)
    const listed = await mcp.call('server_list_backups')
    expect(listed.structured.archives.map((a: { name: string }) => a.name)).toContain(backup.archives[0])
    const refused = await confirm('server_restore', { service: 'panel', archive: backup.archives[0] })
    expect(refused.isError).toBe(true)
    expect(refused.text).toMatch(/not empty/)
    const wrong = await confirm('server_restore', { service: 'broadcaster', archive: backup.archives[0] })
    expect(wrong.text).toMatch(/not an archive of broadcaster/)
  })

  it('set-env refuses forbidden and unknown keys, reverts a value the config check refuses, applies a good one with a recreate', async () => {
    const envFile = join(repoDir, 'docker/env/panel.env')
    const before = await readFile(envFile, 'utf8')
    for (const key of ['PUBLISHER_KEY', 'PANEL_PUBKEY', 'WEBHOOK_SECRET', 'REPORTS_MSGR_BOT_TOKEN', 'REPORTS_WEBHOOK_URL', 'PANEL_ADMIN_PASS', 'DATA_DIR']) {
      const r = await confirm('server_set_env', { service: 'panel', key, value: 'x' })
      expect(r.text, key).toMatch(/refused/)
    }
    expect((await confirm('server_set_env', { service: 'panel', key: 'NOT_A_KNOB', value: '1' })).text).toMatch(/not a documented setting/)
    const bad = await confirm('server_set_env', { service: 'panel', key: 'LOCKOUT_THRESHOLD', value: 'lots' })
    expect(bad.isError).toBe(true)
    expect(bad.text).toMatch(/config check/)
    expect(bad.text).toMatch(/LOCKOUT_THRESHOLD/)
    expect(await readFile(envFile, 'utf8')).toBe(before)
    const cid = async () => (await must(DOCKER, ['ps', '-q', '--filter', `label=com.docker.compose.project=${PROJECT}`, '--filter', 'label=com.docker.compose.service=panel'])).stdout.trim()
    const old = await cid()
    const good = await confirm('server_set_env', { service: 'panel', key: 'LOCKOUT_THRESHOLD', value: '7' })
    expect(good.isError, good.text).toBe(false)
    expect(await readFile(envFile, 'utf8')).toMatch(/^LOCKOUT_THRESHOLD=7$/m)
    const now = await cid()
    expect(now).not.toBe(old)
    expect((await must(DOCKER, ['inspect', '-f', '{{range .Config.Env}}{{println .}}{{end}}', now])).stdout).toMatch(/^LOCKOUT_THRESHOLD=7$/m)
  })

  it('update previews with a dry run; restart applies after its plan; sysctl only plans here', async () => {
    const preview = await mcp.json('server_update', { dryRun: true, confirmToken: undefined })
    expect(preview.plan).toMatch(/preview only/)
    const dry = await confirm('server_update', { dryRun: true })
    expect(JSON.parse(dry.text)).toMatchObject({ dryRun: true, upToDate: true })
    const restarted = await confirm('server_restart', { service: 'broadcaster' })
    expect(restarted.isError, restarted.text).toBe(false)
    const sysctl = await mcp.json('server_sysctl', {})
    expect(sysctl.plan).toMatch(/99-arus-udp\.conf/)
    const repeater = await mcp.json('repeater_status', {})
    expect(repeater).toEqual({ present: false, note: 'no repeater service in this stack' })
    const audit = (await mcp.audit()).map((e) => `${String(e.tool)} ${String(e.status)}`)
    expect(audit).toContain('server_set_env planned')
    expect(audit).toContain('server_restart ok')
  })

  it('a repeater added with server_install: repeater_status reports it running, with its log lines and metrics; the origin lists its key', async () => {
    // A free STATUS_PORT (3340, the pack's, may be taken on a shared host); site-init fills the rest.
    const statusPort = await freePort()
    await writeFile(join(repoDir, 'docker/env/repeater.env'), `STATUS_PORT=${statusPort}\n`, { mode: 0o600 })
    expect(await mcp.json('server_install', { build: false, repeater: true })).toMatchObject({ repoDir, project: PROJECT })
    const relayKey = (await readFile(join(repoDir, 'docker/env/broadcaster.env'), 'utf8')).match(/^ORIGIN_RELAY_KEYS=([0-9a-f]{64})$/m)?.[1]
    expect(relayKey).toBeDefined()
    const deadline = Date.now() + 90_000
    let repeater = await mcp.json('repeater_status', {})
    while (Date.now() < deadline && !(repeater.present === true && /^arus_repeater_disk_budget_bytes \d+/m.test(repeater.metrics ?? ''))) {
      await new Promise((r) => setTimeout(r, 1000))
      repeater = await mcp.json('repeater_status', {})
    }
    expect(repeater).toMatchObject({ present: true, state: 'running', statusPort: String(statusPort) })
    expect(repeater.metrics).toMatch(/^arus_repeater_disk_budget_bytes \d+/m)
    expect(repeater.metrics).toMatch(/^arus_repeater_swarm_connections \d+/m)
    // Its ready line names the key site-init put in the broadcaster's ORIGIN_RELAY_KEYS.
    const ready = repeater.logs.map((l: string) => { try { return JSON.parse(l) } catch { return null } }).find((e: any) => e?.event === 'repeater.ready')
    expect(ready).toMatchObject({ publicKey: relayKey })
    // The whole stack, the recreated broadcaster (its env changed) and the repeater, turns healthy.
    let status = await mcp.call('server_status')
    while (Date.now() < deadline + 60_000 && !(status.structured.containers.length === 3 && status.structured.containers.every((c: { healthy: boolean }) => c.healthy))) {
      await new Promise((r) => setTimeout(r, 1000))
      status = await mcp.call('server_status')
    }
    expect(status.structured.containers.map((c: { service: string }) => c.service).sort()).toEqual(['broadcaster', 'panel', 'repeater'])
    expect(status.structured.containers.every((c: { healthy: boolean }) => c.healthy)).toBe(true)
    const bcEnv = (await must(DOCKER, ['ps', '-q', '--filter', `label=com.docker.compose.project=${PROJECT}`, '--filter', 'label=com.docker.compose.service=broadcaster'])).stdout.trim()
    expect((await must(DOCKER, ['inspect', '-f', '{{range .Config.Env}}{{println .}}{{end}}', bcEnv])).stdout).toContain(`ORIGIN_RELAY_KEYS=${relayKey}\n`)
  })

  it('no secret from the box in any tool result or audit line: passwords, the publisher key, the panel\'s keys', async () => {
    const envText = await readFile(join(repoDir, 'docker/env/broadcaster.env'), 'utf8')
    const creds = await readFile(join(repoDir, 'docker/env/credentials'), 'utf8')
    const secrets = [
      { kind: 'PUBLISHER_KEY', value: /^PUBLISHER_KEY=(\S+)$/m.exec(envText)![1]! },
      ...creds.trim().split('\n').map((l) => ({ kind: `password ${l.split('=')[0]}`, value: l.slice(l.indexOf(':') + 1) }))
    ]
    expect(secrets.every((s) => s.value.length >= 16)).toBe(true)
    await scanSeen(secrets, findSecrets)
  })
})

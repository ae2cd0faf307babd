import { chmod, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlayer, loginWithRetry } from '@arus/sdk'
import { DAEMON_PORTS } from '@arus/service'
import { BROADCASTER_TEST_ENV, cleanupAll, createHttpClient, createTestnet, decodeWithFfmpeg, freePort, LIGHT_CHANNEL, PANEL_TEST_ENV, tmpDir, waitFor, type HttpClient, type Testnet } from '@arus/testkit'
import { DOCKER, must, ROOT, run } from './docker.js'
import { buildImages, IMAGE, MEDIA } from './images.js'

// Issue 18 on a real container engine (scripts/test-deploy.sh starts dockerd when none runs):
// the images build on a local base, the panel + broadcaster stack comes up with Compose on
// host networking, docker/site-init.sh initializes it, a channel starts through the
// broadcaster's control API, and an SDK viewer on the host (outside the containers) plays it
// over a local testnet; down and up keep everything; backup → volumes deleted → restore
// brings the same panel key and users back; the restore refusals hold. Nothing is left behind.

const ctx = { onTestFinished: () => {} }
const PROJECT = `arustest${process.pid}`
let testnet: Testnet
let envDir: string
let backupDir: string
let env: Record<string, string>
let ports: { panel: number; broadcaster: number }
const facts: Record<string, unknown> = {}

const compose = (args: string[], timeoutMs = 180_000) => must('docker-compose', ['-p', PROJECT, '-f', 'docker/compose.yaml', ...args], { env, timeoutMs })

async function healthy (): Promise<number> {
  const started = Date.now()
  try {
    await waitFor(async () => {
      const ok = await Promise.all([ports.panel, ports.broadcaster].map((p) => fetch(`http://127.0.0.1:${p}/healthz`, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false)))
      return ok.every(Boolean)
    }, { timeoutMs: 90_000, intervalMs: 250, message: 'panel and broadcaster /healthz' })
  } catch (err) {
    const logs = await run('docker-compose', ['-p', PROJECT, '-f', 'docker/compose.yaml', 'logs', '--tail', '30'], { env })
    throw new Error(`${(err as Error).message}\n${logs.stdout}`, { cause: err })
  }
  return Date.now() - started
}

async function credentials (): Promise<Record<string, { name: string; password: string }>> {
  const text = await readFile(join(envDir, 'credentials'), 'utf8')
  return Object.fromEntries(text.trim().split('\n').map((l) => {
    const [k, v = ''] = l.split('=')
    const [name = '', password = ''] = v.split(':')
    return [k, { name, password }]
  }))
}

beforeAll(async () => {
  testnet = await createTestnet(ctx)
  envDir = tmpDir(ctx, 'arus-deploy-env-')
  backupDir = tmpDir(ctx, 'arus-deploy-bk-')
  // As docker/backup.sh makes it: listable by the panel's user, archives root's own.
  await chmod(backupDir, 0o755)
  ports = { panel: await freePort(), broadcaster: await freePort() }
  env = { ARUS_ENV_DIR: envDir, ARUS_BACKUP_DIR: backupDir, ARUS_IMAGE: IMAGE, ARUS_MEDIA_IMAGE: MEDIA, COMPOSE_PROJECT_NAME: PROJECT }
  const lines = (o: Record<string, string>) => Object.entries(o).map(([k, v]) => `${k}=${v}`).join('\n') + '\n'
  await writeFile(join(envDir, 'panel.env'), lines({ ...PANEL_TEST_ENV, BOOTSTRAP: testnet.bootstrapString, ADMIN_PORT: String(ports.panel) }), { mode: 0o600 })
  await writeFile(join(envDir, 'broadcaster.env'), lines({ ...BROADCASTER_TEST_ENV, BOOTSTRAP: testnet.bootstrapString, CONTROL_PORT: String(ports.broadcaster) }), { mode: 0o600 })

  Object.assign(facts, (await buildImages()).facts)
}, 1_200_000)

afterAll(async () => {
  await run('docker-compose', ['-p', PROJECT, '-f', 'docker/compose.yaml', 'down', '-v', '--remove-orphans', '-t', '10'], { env, timeoutMs: 120_000 })
  console.log(`deploy facts: ${JSON.stringify(facts)}`)
  await testnet?.destroy()
  // The env dirs (credentials, env files) and the backup dir were made without a test context.
  await cleanupAll()
}, 180_000)

describe('deploy pack', () => {
  it('every compose stack validates and the systemd units verify', async () => {
    // A separate env dir: the stacks' tests below must find no repeater.env they did not write.
    const cfgEnv = { ...env, ARUS_ENV_DIR: tmpDir(ctx, 'arus-deploy-cfg-') }
    for (const d of ['panel', 'broadcaster', 'library', 'reseller', 'repeater']) await writeFile(join(cfgEnv.ARUS_ENV_DIR, `${d}.env`), '', { mode: 0o600 })
    const stacks = [['compose.yaml'], ['compose.yaml', 'compose.library.yaml'], ['compose.yaml', 'compose.reseller.yaml'], ['compose.yaml', 'compose.repeater.yaml'],
      ['compose.yaml', 'compose.library.yaml', 'compose.reseller.yaml', 'compose.repeater.yaml'], ['compose.repeater-only.yaml']]
    for (const files of stacks) {
      const r = await run('docker-compose', [...files.flatMap((f) => ['-f', `docker/${f}`]), 'config', '-q'], { env: cfgEnv })
      expect(r.code, `${files.join(' + ')}: ${r.stderr}`).toBe(0)
    }
    const all = (await must('docker-compose', ['-f', 'docker/compose.yaml', '-f', 'docker/compose.library.yaml', '-f', 'docker/compose.reseller.yaml', '-f', 'docker/compose.repeater.yaml', 'config', '--services'], { env: cfgEnv })).stdout.trim().split('\n').sort()
    expect(all).toEqual(['broadcaster', 'library', 'panel', 'repeater', 'reseller'])
    expect((await must('docker-compose', ['-f', 'docker/compose.repeater-only.yaml', 'config', '--services'], { env: cfgEnv })).stdout.trim()).toBe('repeater')
    // The repeater-only box runs the very service the overlay adds (one file each, no drift),
    // but for the overlay's wait for the panel of its stack.
    const service = async (f: string) => { const text = await readFile(join(ROOT, 'docker', f), 'utf8'); return text.slice(text.indexOf('\nservices:')).replace(/\n {4}# [^\n]*\n {4}# [^\n]*\n {4}depends_on:\n( {6}[^\n]*\n)+/, '\n') }
    expect(await service('compose.repeater-only.yaml')).toBe(await service('compose.repeater.yaml'))
    // site-init gives the repeater the pack's port for it (the daemon's own default is 0: no socket).
    expect(await readFile(join(ROOT, 'docker/site-init.sh'), 'utf8')).toContain(`env_set "$f" STATUS_PORT ${DAEMON_PORTS.repeater}`)
    const units = ['panel', 'broadcaster', 'library', 'reseller', 'repeater'].map((d) => `docker/systemd/arus-${d}.service`)
    const verified = await run('systemd-analyze', ['verify', ...units])
    expect(verified.code, verified.stderr).toBe(0)
    expect(verified.stderr).not.toMatch(/arus-/)
  })

  it('from zero to a playing viewer on the host; down and up keep the panel key, users and channel', async (t) => {
    await must('bash', ['docker/site-init.sh', '--project', PROJECT], { env, timeoutMs: 180_000 })
    // Secrets minted by the init went to the env files only.
    expect(await readFile(join(envDir, 'broadcaster.env'), 'utf8')).toMatch(/^PUBLISHER_KEY=[0-9a-f]{128}$/m)
    const started = Date.now()
    await compose(['up', '-d'])
    facts['cold start s'] = Math.round((Date.now() - started + await healthy()) / 100) / 10
    const creds = await credentials()
    const panel: HttpClient = createHttpClient(`http://127.0.0.1:${ports.panel}`, { login: creds.PANEL_ADMIN! })
    const bc: HttpClient = createHttpClient(`http://127.0.0.1:${ports.broadcaster}`, { login: creds.BROADCASTER_ADMIN! })
    const panelKey = (await panel.api('GET', '/api/status')).panelKey as string

    await bc.api('POST', '/api/channels', { id: 'test', title: 'Test', ...LIGHT_CHANNEL })
    await bc.api('POST', '/api/channels/test/start')
    await waitFor(async () => (await bc.api('GET', '/api/channels/test')).registered === true, { timeoutMs: 60_000, message: 'channel registered' })
    await panel.api('POST', '/api/users', { username: 'alice', password: 'alice-password' })
    await panel.api('POST', '/api/users/alice/grants', { streamId: 'test' })

    const player = createPlayer({ panelPubKey: panelKey, storeDir: tmpDir(t, 'arus-deploy-viewer-'), swarm: { bootstrap: testnet.bootstrap } })
    t.onTestFinished(() => player.stop())
    await player.connect()
    await loginWithRetry(player, 'alice', 'alice-password', { attempts: 60, delayMs: 500 })
    const decoded = await decodeWithFfmpeg((await player.resolve('test')).url, 2, { timeoutMs: 90_000 })
    expect(decoded.code, decoded.stderr).toBe(0)

    // A clean stop is quick (tini forwards SIGTERM; nothing waits for the kill).
    const down = Date.now()
    await compose(['down', '-t', '25'])
    facts['down s'] = Math.round((Date.now() - down) / 100) / 10
    expect(Date.now() - down).toBeLessThan(25_000)
    await compose(['up', '-d'])
    await healthy()
    panel.reset()
    bc.reset()
    expect((await panel.api('GET', '/api/status')).panelKey).toBe(panelKey)
    expect((await panel.api('GET', '/api/users/alice')).grants).toEqual(['test'])
    await waitFor(async () => (await bc.api('GET', '/api/channels/test')).registered === true, { timeoutMs: 60_000, message: 'channel back and registered' })
    const ps = (await must(DOCKER, ['ps', '--filter', `label=com.docker.compose.project=${PROJECT}`, '--format', '{{.Names}} {{.Status}}'])).stdout
    expect(ps).toMatch(/panel.*Up/)
    const user = (await must(DOCKER, ['exec', `${PROJECT}_panel_1`, 'id', '-un'])).stdout.trim()
    expect(user).toBe('arus')
  })

  it('backup → volumes deleted → restore brings the same panel key and users back; restore refuses a non-empty volume and another service\'s archive', async () => {
    const creds = await credentials()
    const panel = createHttpClient(`http://127.0.0.1:${ports.panel}`, { login: creds.PANEL_ADMIN! })
    const panelKey = (await panel.api('GET', '/api/status')).panelKey
    const made = (await must('bash', ['docker/backup.sh', '--project', PROJECT, '--dir', backupDir, 'panel', 'broadcaster'], { env, timeoutMs: 180_000 })).stdout.trim().split('\n')
    expect(made).toHaveLength(2)
    const [panelArchive, bcArchive] = made as [string, string]
    expect(panelArchive).toMatch(/\/arus-panel-\d{8}T\d{6}Z\.tar\.gz$/)
    expect((await stat(panelArchive)).mode & 0o777).toBe(0o600)
    await healthy()
    panel.reset()
    const listed = await panel.api('GET', '/api/backups')
    expect(listed.archives.map((a: { name: string }) => a.name)).toEqual(expect.arrayContaining([panelArchive.split('/').pop(), bcArchive.split('/').pop()]))

    const onFull = await run('bash', ['docker/restore.sh', '--project', PROJECT, 'panel', panelArchive], { env })
    expect(onFull.code, onFull.stderr).toBe(3)
    expect(onFull.stderr).toMatch(/not empty/)
    const wrong = await run('bash', ['docker/restore.sh', '--project', PROJECT, 'broadcaster', panelArchive], { env })
    expect(wrong.code).toBe(3)
    expect(wrong.stderr).toMatch(/not an archive of broadcaster/)

    await compose(['down', '-v', '-t', '25'])
    expect((await run(DOCKER, ['volume', 'inspect', `${PROJECT}_panel-data`])).code).not.toBe(0)
    await must('bash', ['docker/restore.sh', '--project', PROJECT, 'panel', panelArchive], { env })
    await must('bash', ['docker/restore.sh', '--project', PROJECT, 'broadcaster', bcArchive], { env })
    await compose(['up', '-d'])
    await healthy()
    panel.reset()
    expect((await panel.api('GET', '/api/status')).panelKey).toBe(panelKey)
    expect((await panel.api('GET', '/api/users/alice')).username).toBe('alice')

    await compose(['down', '-v', '--remove-orphans', '-t', '25'])
    await noneLeft(PROJECT)
  })

  it('the full site with the library, reseller and repeater overlays: first run wires all five, each comes up healthy, the reseller reaches the panel, the repeater follows it and the origin trusts it', async () => {
    const project = `${PROJECT}full`
    const dir = tmpDir(ctx, 'arus-deploy-full-')
    const p = { panel: await freePort(), broadcaster: await freePort(), library: await freePort(), reseller: await freePort(), repeater: await freePort() }
    const lines = (o: Record<string, string>) => Object.entries(o).map(([k, v]) => `${k}=${v}`).join('\n') + '\n'
    const common = { ARGON2_MEM_KIB: '8', ARGON2_OPS: '1', BOOTSTRAP: testnet.bootstrapString }
    await writeFile(join(dir, 'panel.env'), lines({ ...PANEL_TEST_ENV, ...common, ADMIN_PORT: String(p.panel) }), { mode: 0o600 })
    await writeFile(join(dir, 'broadcaster.env'), lines({ ...common, CONTROL_PORT: String(p.broadcaster) }), { mode: 0o600 })
    await writeFile(join(dir, 'library.env'), lines({ ...common, CONTROL_PORT: String(p.library) }), { mode: 0o600 })
    // No PANEL_ADMIN_URL: site-init wires the reseller to the panel (issue 39 item 1).
    await writeFile(join(dir, 'reseller.env'), lines({ ARGON2_MEM_KIB: '8', ARGON2_OPS: '1', CONTROL_PORT: String(p.reseller) }), { mode: 0o600 })
    // Only a free STATUS_PORT (3340 may be taken on a shared host): site-init adds PANEL_PUBKEY,
    // BOOTSTRAP (the panel's) and the repeater's key in the broadcaster's ORIGIN_RELAY_KEYS.
    await writeFile(join(dir, 'repeater.env'), lines({ STATUS_PORT: String(p.repeater) }), { mode: 0o600 })
    const fullEnv = { ...env, ARUS_ENV_DIR: dir, COMPOSE_PROJECT_NAME: project }
    const files = ['-f', 'docker/compose.yaml', '-f', 'docker/compose.library.yaml', '-f', 'docker/compose.reseller.yaml', '-f', 'docker/compose.repeater.yaml']
    try {
      await must('bash', ['docker/site-init.sh', '--project', project, '--library', '--reseller', '--repeater'], { env: fullEnv, timeoutMs: 240_000 })
      expect(await readFile(join(dir, 'library.env'), 'utf8')).toMatch(/^PUBLISHER_NAME=library$/m)
      expect(await readFile(join(dir, 'reseller.env'), 'utf8')).toMatch(new RegExp(`^PANEL_ADMIN_URL=http://127\\.0\\.0\\.1:${p.panel}$`, 'm'))
      const repeaterEnv = await readFile(join(dir, 'repeater.env'), 'utf8')
      const relayKey = (await readFile(join(dir, 'broadcaster.env'), 'utf8')).match(/^ORIGIN_RELAY_KEYS=([0-9a-f]{64})$/m)?.[1]
      expect(relayKey).toBeDefined()
      expect(repeaterEnv).toContain(`BOOTSTRAP=${testnet.bootstrapString}\n`)
      expect(repeaterEnv).toMatch(/^PANEL_PUBKEY=[0-9a-f]{64}$/m)
      // Run again: nothing is added twice.
      await must('bash', ['docker/site-init.sh', '--project', project, '--library', '--reseller', '--repeater'], { env: fullEnv, timeoutMs: 240_000 })
      expect((await readFile(join(dir, 'broadcaster.env'), 'utf8')).match(/^ORIGIN_RELAY_KEYS=.*$/m)?.[0]).toBe(`ORIGIN_RELAY_KEYS=${relayKey}`)
      // Cold start per image: compose up → each daemon's /healthz ok. `up` itself returns only once
      // the repeater started, which waits for the panel's healthcheck (depends_on): the repeater's
      // cold start counts from its container's start.
      const started = Date.now()
      const upAt: Record<string, number> = {}
      const up = must('docker-compose', ['-p', project, ...files, 'up', '-d'], { env: fullEnv, timeoutMs: 180_000 })
      up.catch(() => {})
      await waitFor(async () => {
        for (const [svc, port] of Object.entries(p)) {
          if (upAt[svc] === undefined && await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false)) upAt[svc] = Date.now() - started
        }
        return Object.keys(upAt).length === 5
      }, { timeoutMs: 120_000, intervalMs: 100, message: 'all five /healthz' })
      await up
      const repeaterStartedAt = Date.parse((await must(DOCKER, ['inspect', '-f', '{{.State.StartedAt}}', `${project}_repeater_1`])).stdout.trim())
      facts['repeater started after up s'] = Math.round((repeaterStartedAt - started) / 100) / 10
      upAt.repeater = upAt.repeater! - (repeaterStartedAt - started)
      for (const [svc, ms] of Object.entries(upAt)) facts[`cold start ${svc} s`] = Math.round(ms / 100) / 10
      const creds = Object.fromEntries((await readFile(join(dir, 'credentials'), 'utf8')).trim().split('\n').map((l) => { const [k, v = ''] = l.split('='); const [name = '', password = ''] = v.split(':'); return [k, { name, password }] }))
      const reseller = createHttpClient(`http://127.0.0.1:${p.reseller}`, { login: creds.RESELLER_ROOT })
      const system = await reseller.api('GET', '/api/system')
      expect(system.panel).toMatchObject({ reachable: true, error: null })
      expect(system.panel.stats.admins).toBeGreaterThanOrEqual(2)
      // The container's own healthcheck (arus-healthz … ok) needs the panel reachable.
      await waitFor(async () => (await run(DOCKER, ['inspect', '--format', '{{.State.Health.Status}}', `${project}_reseller_1`])).stdout.trim() === 'healthy', { timeoutMs: 60_000, intervalMs: 1000, message: 'reseller container healthy' })
      // An account the reseller activates is one a viewer logs into.
      await reseller.api('POST', '/api/credits/mint', { amount: 1, note: 'deploy test' })
      expect(await reseller.api('POST', '/api/accounts', { name: 'deployviewer', password: 'viewer-pass', months: 1 })).toMatchObject({ status: 'active' })
      const panelKey = (await readFile(join(dir, 'broadcaster.env'), 'utf8')).match(/^PANEL_PUBKEY=([0-9a-f]{64})$/m)?.[1]
      const player = createPlayer({ panelPubKey: panelKey, storeDir: tmpDir(ctx, 'arus-deploy-viewer-'), swarm: { bootstrap: testnet.bootstrap } })
      try {
        await player.connect()
        expect(await loginWithRetry(player, 'deployviewer', 'viewer-pass', { attempts: 60, delayMs: 500, totalMs: 60_000 })).toEqual([])
      } finally {
        await player.stop()
      }
      const library = createHttpClient(`http://127.0.0.1:${p.library}`, { login: creds.LIBRARY_ADMIN })
      expect((await library.api('GET', '/api/status')).publisher).toBe('library')

      // The repeater: the key site-init minted is the one it runs with (and the documented
      // `exec … arus-repeater key` prints), it follows the panel's catalog over the DHT, its
      // container turns healthy through arus-healthz on STATUS_PORT, and it serves metrics.
      const repeaterHealth = async () => (await fetch(`http://127.0.0.1:${p.repeater}/healthz`)).json() as Promise<Record<string, any>>
      expect(await repeaterHealth()).toMatchObject({ ok: true, publicKey: relayKey, panelKey })
      expect((await must('docker-compose', ['-p', project, ...files, 'exec', '-T', 'repeater', 'arus-repeater', 'key'], { env: fullEnv })).stdout.trim()).toBe(relayKey)
      // A fresh panel's catalog is empty: a category record is the first write the repeater must read.
      const panelApi = createHttpClient(`http://127.0.0.1:${p.panel}`, { login: creds.PANEL_ADMIN })
      await panelApi.api('POST', '/api/categories', { name: 'news' })
      await waitFor(async () => (await repeaterHealth()).catalogLength > 0, { timeoutMs: 60_000, message: 'repeater read the panel\'s catalog' })
      await waitFor(async () => (await run(DOCKER, ['inspect', '--format', '{{.State.Health.Status}}', `${project}_repeater_1`])).stdout.trim() === 'healthy', { timeoutMs: 60_000, intervalMs: 1000, message: 'repeater container healthy' })
      expect(await (await fetch(`http://127.0.0.1:${p.repeater}/metrics`)).text()).toMatch(/^arus_repeater_disk_budget_bytes \d+/m)
      expect((await must(DOCKER, ['inspect', '-f', '{{range .Config.Env}}{{println .}}{{end}}', `${project}_broadcaster_1`])).stdout).toContain(`ORIGIN_RELAY_KEYS=${relayKey}\n`)
    } finally {
      await run('docker-compose', ['-p', project, ...files, 'down', '-v', '--remove-orphans', '-t', '10'], { env: fullEnv, timeoutMs: 120_000 })
    }
    await noneLeft(project)
  })
})

/** No container, volume or network of the project is left. */
async function noneLeft (project: string): Promise<void> {
  for (const kind of ['ps -a', 'volume ls', 'network ls']) {
    const left = (await must(DOCKER, [...kind.split(' '), '-q', '--filter', `label=com.docker.compose.project=${project}`])).stdout.trim()
    expect(left, kind).toBe('')
  }
}

import { chmod, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlayer, loginWithRetry } from '@arus/sdk'
import { BROADCASTER_TEST_ENV, cleanupAll, createHttpClient, createTestnet, decodeWithFfmpeg, freePort, LIGHT_CHANNEL, PANEL_TEST_ENV, tmpDir, waitFor, type HttpClient, type Testnet } from '@arus/testkit'
import { DOCKER, must, run } from './docker.js'
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
    for (const d of ['library', 'reseller']) await writeFile(join(envDir, `${d}.env`), '', { mode: 0o600 })
    for (const files of [['compose.yaml'], ['compose.yaml', 'compose.library.yaml'], ['compose.yaml', 'compose.reseller.yaml'], ['compose.yaml', 'compose.library.yaml', 'compose.reseller.yaml']]) {
      const r = await run('docker-compose', [...files.flatMap((f) => ['-f', `docker/${f}`]), 'config', '-q'], { env })
      expect(r.code, `${files.join(' + ')}: ${r.stderr}`).toBe(0)
    }
    const all = (await must('docker-compose', ['-f', 'docker/compose.yaml', '-f', 'docker/compose.library.yaml', '-f', 'docker/compose.reseller.yaml', 'config', '--services'], { env })).stdout.trim().split('\n').sort()
    expect(all).toEqual(['broadcaster', 'library', 'panel', 'reseller'])
    const units = ['panel', 'broadcaster', 'library', 'reseller'].map((d) => `docker/systemd/arus-${d}.service`)
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

  it('the full site with the library and reseller overlays: first run wires all four, each comes up healthy, the reseller reaches the panel', async () => {
    const project = `${PROJECT}full`
    const dir = tmpDir(ctx, 'arus-deploy-full-')
    const p = { panel: await freePort(), broadcaster: await freePort(), library: await freePort(), reseller: await freePort() }
    const lines = (o: Record<string, string>) => Object.entries(o).map(([k, v]) => `${k}=${v}`).join('\n') + '\n'
    const common = { ARGON2_MEM_KIB: '8', ARGON2_OPS: '1', BOOTSTRAP: testnet.bootstrapString }
    await writeFile(join(dir, 'panel.env'), lines({ ...PANEL_TEST_ENV, ...common, ADMIN_PORT: String(p.panel) }), { mode: 0o600 })
    await writeFile(join(dir, 'broadcaster.env'), lines({ ...common, CONTROL_PORT: String(p.broadcaster) }), { mode: 0o600 })
    await writeFile(join(dir, 'library.env'), lines({ ...common, CONTROL_PORT: String(p.library) }), { mode: 0o600 })
    // No PANEL_ADMIN_URL: site-init wires the reseller to the panel (issue 39 item 1).
    await writeFile(join(dir, 'reseller.env'), lines({ ARGON2_MEM_KIB: '8', ARGON2_OPS: '1', CONTROL_PORT: String(p.reseller) }), { mode: 0o600 })
    const fullEnv = { ...env, ARUS_ENV_DIR: dir, COMPOSE_PROJECT_NAME: project }
    const files = ['-f', 'docker/compose.yaml', '-f', 'docker/compose.library.yaml', '-f', 'docker/compose.reseller.yaml']
    try {
      await must('bash', ['docker/site-init.sh', '--project', project, '--library', '--reseller'], { env: fullEnv, timeoutMs: 240_000 })
      expect(await readFile(join(dir, 'library.env'), 'utf8')).toMatch(/^PUBLISHER_NAME=library$/m)
      expect(await readFile(join(dir, 'reseller.env'), 'utf8')).toMatch(new RegExp(`^PANEL_ADMIN_URL=http://127\\.0\\.0\\.1:${p.panel}$`, 'm'))
      // Cold start per image: compose up → each daemon's /healthz ok.
      const started = Date.now()
      const upAt: Record<string, number> = {}
      await must('docker-compose', ['-p', project, ...files, 'up', '-d'], { env: fullEnv, timeoutMs: 180_000 })
      await waitFor(async () => {
        for (const [svc, port] of Object.entries(p)) {
          if (upAt[svc] === undefined && await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false)) upAt[svc] = Date.now() - started
        }
        return Object.keys(upAt).length === 4
      }, { timeoutMs: 90_000, intervalMs: 100, message: 'all four /healthz' })
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

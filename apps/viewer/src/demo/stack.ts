import { randomBytes } from 'node:crypto'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { freePort, runOnce, startProcess, type DemoProcess } from './procs.js'

/** Paths of the workspace binaries the demo runs (compiled dist/, built by scripts/setup.sh). */
export function binaries (root: string) {
  return {
    testnet: join(root, 'packages', 'swarm', 'bin', 'arus-testnet.js'),
    panel: join(root, 'apps', 'panel', 'bin', 'arus-panel.js'),
    broadcaster: join(root, 'apps', 'broadcaster', 'bin', 'arus-broadcaster.js'),
    viewer: join(root, 'apps', 'viewer', 'bin', 'arus-viewer.js')
  }
}

export interface DemoStack {
  processes: DemoProcess[]
  bootstrap: string
  panelKey: string
  url: string
  adminUrl: string
  controlUrl: string
  credentials: { viewer: [string, string]; admin: [string, string]; broadcaster: [string, string] }
}

const secret = (): string => randomBytes(9).toString('base64url')
const CHANNELS = [
  { id: 'demo-1', title: 'Test pattern one', order: 1 },
  { id: 'demo-2', title: 'Test pattern two', order: 2 }
]

async function check (what: string, r: { code: number | null; stdout: string; stderr: string }): Promise<string> {
  if (r.code !== 0) throw new Error(`${what} failed: ${r.stderr.trim() || r.stdout.trim()}`)
  return r.stdout
}

async function http (base: string, method: string, path: string, token: string | null, body?: unknown): Promise<any> {
  const res = await fetch(base + path, {
    method,
    headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${base}${path}: ${res.status} ${text}`)
  return text === '' ? null : JSON.parse(text)
}

async function until<T> (what: string, ms: number, fn: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = await fn().catch(() => null)
    if (v !== null && v !== undefined && v !== false) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 300))
  }
}

/**
 * Starts, all on 127.0.0.1: a DHT testnet, a panel (identity, an admin, a viewer account, an
 * enrolled publisher), a broadcaster with two `test` channels under that publisher, the grants,
 * and a headless viewer playing the first channel. Each process is appended to `processes`
 * as it starts (the caller can stop them at any moment; a step waiting on a stopped one fails).
 */
export async function startDemoStack (root: string, work: string, say: (s: string) => void, processes: DemoProcess[]): Promise<DemoStack> {
  const bin = binaries(root)
  const logs = join(work, 'logs')
  await mkdir(logs, { recursive: true, mode: 0o700 })
  const credentials = { viewer: ['viewer', secret()] as [string, string], admin: ['admin', secret()] as [string, string], broadcaster: ['op', secret()] as [string, string] }
  try {
    say('starting a local DHT testnet on 127.0.0.1')
    const testnet = startProcess('testnet', [bin.testnet, '--host', '127.0.0.1'], { env: {}, logs })
    processes.push(testnet)
    const bootstrap = (await testnet.waitForLine(/^BOOTSTRAP=(\S+)$/, 20_000))[1] as string

    say('setting up the panel: identity, an admin, a viewer account, a publisher')
    const panelEnv = { DATA_DIR: join(work, 'panel'), BOOTSTRAP: bootstrap, ADMIN_ENABLED: '1', ADMIN_PORT: '0', LOG_FORMAT: 'json' }
    const { panelKey } = JSON.parse(await check('arus-panel init', await runOnce([bin.panel, '--json', 'init'], { env: panelEnv }))) as { panelKey: string }
    await check('arus-panel add-admin', await runOnce([bin.panel, 'add-admin', credentials.admin[0]], { env: panelEnv, input: `${credentials.admin[1]}\n` }))
    await check('arus-panel create-user', await runOnce([bin.panel, 'create-user', credentials.viewer[0]], { env: panelEnv, input: `${credentials.viewer[1]}\n` }))
    const site = JSON.parse(await check('arus-panel add-publisher', await runOnce([bin.panel, '--json', 'add-publisher', 'demo', '--scopes', 'demo-*'], { env: panelEnv }))) as { secretKey: string }
    const panel = startProcess('panel', [bin.panel, 'run'], { env: panelEnv, logs })
    processes.push(panel)
    await panel.waitForLine(/"event":"panel\.ready"/, 30_000)
    const adminUrl = (JSON.parse((await panel.waitForLine(/"event":"admin\.listening"/, 30_000)).input ?? '{}') as { url: string }).url

    say('starting a broadcaster with two test channels')
    const bcEnv = {
      DATA_DIR: join(work, 'broadcaster'),
      BOOTSTRAP: bootstrap,
      PANEL_PUBKEY: panelKey,
      PUBLISHER_KEY: site.secretKey,
      PUBLISHER_NAME: 'demo',
      CONTROL_ENABLED: '1',
      CONTROL_PORT: String(await freePort()),
      INGEST_BIND: '127.0.0.1',
      HLS_TIME: '2',
      LOG_FORMAT: 'json'
    }
    await check('arus-broadcaster add-admin', await runOnce([bin.broadcaster, 'add-admin', credentials.broadcaster[0]], { env: bcEnv, input: `${credentials.broadcaster[1]}\n` }))
    const broadcaster = startProcess('broadcaster', [bin.broadcaster, 'run'], { env: bcEnv, logs })
    processes.push(broadcaster)
    const controlUrl = (await broadcaster.waitForLine(/"event":"broadcaster\.ready".*"controlUrl":"([^"]+)"/, 30_000))[1] as string
    const op = (await http(controlUrl, 'POST', '/api/login', null, { username: credentials.broadcaster[0], password: credentials.broadcaster[1] })).token as string
    for (const ch of CHANNELS) {
      await http(controlUrl, 'POST', '/api/channels', op, { id: ch.id, title: ch.title, category: ['Demo'], input: 'test', transcode: { width: 640, height: 360, preset: 'veryfast' } })
      await http(controlUrl, 'POST', `/api/channels/${ch.id}/start`, op)
    }

    say('granting both channels to the viewer account')
    const admin = (await http(adminUrl, 'POST', '/api/login', null, { username: credentials.admin[0], password: credentials.admin[1] })).token as string
    await until('the channels to register with the panel', 60_000, async () => {
      const { streams } = await http(adminUrl, 'GET', '/api/streams', admin) as { streams: Array<{ id: string; isLive: boolean }> }
      return CHANNELS.every((ch) => streams.some((s) => s.id === ch.id && s.isLive))
    })
    for (const ch of CHANNELS) {
      await http(adminUrl, 'PATCH', `/api/streams/${ch.id}`, admin, { order: ch.order })
      await http(adminUrl, 'POST', `/api/users/${credentials.viewer[0]}/grants`, admin, { streamId: ch.id })
    }

    say('starting a headless viewer: log in over the DHT and play the first channel')
    const viewer = startProcess('viewer', [bin.viewer, '--panel-key', panelKey, '--user', credentials.viewer[0], '--bootstrap', bootstrap,
      '--play', CHANNELS[0]!.id, '--json', '--store-dir', join(work, 'viewer')], { env: {}, logs, input: `${credentials.viewer[1]}\n` })
    processes.push(viewer)
    const playing = JSON.parse((await viewer.waitForLine(/"event":"playing"/, 120_000)).input ?? '{}') as { url: string }
    return { processes, bootstrap, panelKey, url: playing.url, adminUrl, controlUrl, credentials }
  } catch (err) {
    await stopAll(processes)
    throw err
  }
}

/** Stops the processes newest first (viewer, broadcaster, panel, testnet). */
export async function stopAll (processes: DemoProcess[]): Promise<void> {
  for (const p of [...processes].reverse()) await p.stop(p.name === 'viewer' ? 'SIGINT' : 'SIGTERM', 10_000)
}

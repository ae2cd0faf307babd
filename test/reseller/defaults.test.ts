import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadPanelConfig } from '@arus/panel'
import { loadResellerConfig } from '@arus/reseller'
import { createPlayer, loginWithRetry } from '@arus/sdk'
import { cleanupAll, createStack, startReseller, tmpDir, waitFor, type ResellerHandle, type Stack } from '@arus/testkit'

// Issue 39 item 1: a reseller on its defaults reaches a panel on its defaults. The panel runs
// on the port its own schema defaults to, the reseller is started with no PANEL_ADMIN_URL at
// all; an account it activates is one a viewer then logs into. Its /healthz (and the image's
// healthcheck, docker/bin/arus-healthz with `ok`) says when the panel is unreachable.

const root = fileURLToPath(new URL('../..', import.meta.url))
const ctx = { onTestFinished: () => {} }
const panelDefaultPort = loadPanelConfig({}).ADMIN_PORT
let stack: Stack
let reseller: ResellerHandle

/** The image's healthcheck script, run on this host against the reseller's port. */
const healthcheck = (port: string, mode?: 'ok') =>
  spawnSync('sh', [`${root}/docker/bin/arus-healthz`, port, ...(mode ? [mode] : [])], { encoding: 'utf8', timeout: 10_000 }).status

beforeAll(async () => {
  stack = await createStack(ctx, { panel: { env: { ADMIN_PORT: String(panelDefaultPort) } } })
  reseller = await startReseller(ctx, { panel: stack.panel, panelUrl: null, env: { PANEL_PROBE_SEC: '1' } })
  await reseller.api('POST', '/api/credits/mint', { amount: 3, note: 'stock' })
}, 120_000)

afterAll(async () => { await cleanupAll() }, 60_000)

describe('reseller defaults', () => {
  it('defaults PANEL_ADMIN_URL to the panel\'s own default admin address', () => {
    expect(panelDefaultPort).toBe(3210)
    expect(new URL(loadResellerConfig({}).PANEL_ADMIN_URL).port).toBe(String(panelDefaultPort))
    expect(reseller.env.PANEL_ADMIN_URL).toBeUndefined()
  })

  it('activates an account on a panel on its defaults, and a viewer logs into it', async (t) => {
    const health = (await reseller.call('GET', '/healthz')).body
    expect(health).toMatchObject({ ok: true, panel: { reachable: true, lastError: null } })
    const acct = await reseller.api('POST', '/api/accounts', { name: 'viewer1', password: 'viewer-pass', months: 1 })
    expect(acct).toMatchObject({ name: 'viewer1', status: 'active' })
    expect((await stack.panel.api('GET', '/api/users/viewer1')).status).toBe('active')

    const player = createPlayer({ panelPubKey: stack.panel.panelKey, storeDir: tmpDir(t, 'arus-viewer-'), swarm: { bootstrap: stack.testnet!.bootstrap } })
    t.onTestFinished(() => player.stop())
    await player.connect()
    expect(await loginWithRetry(player, 'viewer1', 'viewer-pass', { attempts: 40, delayMs: 500 })).toEqual([])
  })

  it('says on /healthz and in the healthcheck when its panel is unreachable, and when it is back', { timeout: 90_000 }, async () => {
    const port = new URL(reseller.url!).port
    expect(healthcheck(port, 'ok')).toBe(0)
    await stack.panel.stop()
    await waitFor(async () => (await reseller.call('GET', '/healthz')).body.ok === false, { timeoutMs: 20_000, message: 'healthz ok false' })
    const down = (await reseller.call('GET', '/healthz')).body
    expect(down.panel).toMatchObject({ reachable: false, url: `http://127.0.0.1:${panelDefaultPort}`, lastError: 'ECONNREFUSED' })
    expect(down.ledger.invariantOk).toBe(true)
    expect(healthcheck(port, 'ok')).toBe(1)
    // The plain liveness check (the other daemons' healthcheck) still passes: the process is up.
    expect(healthcheck(port)).toBe(0)
    const refused = await reseller.call('POST', '/api/accounts', { name: 'viewer2', password: 'viewer-pass', months: 1 })
    expect(refused.status).toBe(502)

    await stack.panel.start()
    await waitFor(async () => (await reseller.call('GET', '/healthz')).body.ok === true, { timeoutMs: 20_000, message: 'healthz ok again' })
    expect(healthcheck(port, 'ok')).toBe(0)
  })
})

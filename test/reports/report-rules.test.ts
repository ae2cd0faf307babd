import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanupAll, createTestnet, startPanel } from '@arus/testkit'
import { enrollDevices, link, report, sdkViewer } from './helpers.js'

// Issue 14: the report RPC's rules against the built panel, with real SDK viewers where a host
// would use one: the SDK's mapping of the panel's answers, the per-reporter throttle, the
// strict category, the raw size cap, liveness of the session behind a report, and a panel
// with reports disabled.

afterAll(async () => { await cleanupAll() }, 60_000)

const alice = { name: 'alice', password: 'alice-pw' }
const bob = { name: 'bob', password: 'bob-pw' }

describe('report RPC', () => {
  it('SDK: sent, then the panel throttle answers locked with retryAfter; the device waits that long', async (t) => {
    const testnet = await createTestnet(t)
    const panel = await startPanel(t, { testnet, users: [alice] })
    let now = Date.now()
    const player = await sdkViewer(t, testnet, panel, alice, { now: () => now })
    const sent = []
    for (const channel of ['a', 'b', 'c', 'd', 'e']) sent.push(await player.report({ channel, category: 'buffering', appVersion: '2.1', platform: 'tv' }))
    expect(sent).toEqual(Array(5).fill({ status: 'sent' }))
    const locked = await player.report({ channel: 'f', category: 'buffering' })
    expect(locked).toEqual({ status: 'locked', retryAfter: expect.any(Number) })
    expect(locked.retryAfter).toBeGreaterThan(590)
    expect(locked.retryAfter).toBeLessThanOrEqual(600)
    // Asked again before retryAfter, the device does not bother the panel.
    expect((await player.report({ channel: 'f', category: 'buffering' })).status).toBe('cooldown')
    expect((await panel.api('GET', '/api/reports/summary')).throttled).toBe(1)
    const { reports } = await panel.api('GET', '/api/reports?category=buffering&limit=3')
    expect(reports).toHaveLength(3)
    expect(reports[0]).toMatchObject({ appVersion: '2.1', platform: 'tv', status: 'new', count: 1, text: null })
    expect(reports[0].events.length).toBeLessThanOrEqual(50)
    now += 11 * 60_000 // only the device's clock moves: the panel still throttles
    expect((await player.report({ channel: 'f', category: 'buffering' })).status).toBe('locked')
  })

  it('rejects a category outside the enum and an oversized request; a revoked device, a disabled account and bumped sessions cannot report', async (t) => {
    const testnet = await createTestnet(t)
    const panel = await startPanel(t, { testnet, users: [alice, bob] })
    const viewers = await link(t, testnet, panel)
    const [a1, a2, a3] = await enrollDevices(viewers, [alice], 3)
    const [b1] = await enrollDevices(viewers, [bob], 1)
    const call = (body: unknown) => viewers.rpc.request('report', body)
    expect(await call({ v: 1, ...report(a1!.token, 'news') })).toEqual({ v: 1, ok: true })
    expect(await call({ v: 1, ...report(a1!.token, 'news', 'Buffering') })).toMatchObject({ error: 'invalid-request', detail: expect.stringContaining('category') })
    expect(await call({ v: 1, ...report(a1!.token, 'news'), events: [{ kind: 'status', at: 1, detail: 'x'.repeat(201) }] })).toMatchObject({ error: 'invalid-request' })
    expect(await call({ v: 1, ...report(a1!.token, 'news'), text: 'y'.repeat(40_000) })).toEqual({ v: 1, error: 'too-large' })
    expect(await call({ v: 1, ...report('not-a-token', 'news') })).toEqual({ v: 1, error: 'unauthorized' })

    await panel.api('DELETE', `/api/users/alice/devices/${a2!.deviceId}`)
    expect(await call({ v: 1, ...report(a2!.token, 'news') })).toEqual({ v: 1, error: 'unauthorized' })
    expect(await call({ v: 1, ...report(a3!.token, 'sport') })).toEqual({ v: 1, ok: true }) // the other devices are fine
    await panel.api('POST', '/api/users/alice/logout-all')
    expect(await call({ v: 1, ...report(a3!.token, 'news') })).toEqual({ v: 1, error: 'unauthorized' })
    await panel.api('POST', '/api/users/bob/status', { status: 'disabled' })
    expect(await call({ v: 1, ...report(b1!.token, 'news') })).toEqual({ v: 1, error: 'unauthorized' })
    expect((await panel.api('GET', '/api/reports')).reports).toHaveLength(2)
  })

  it('SDK: a logged-out device gets SDK_REPORT_REJECTED', async (t) => {
    const testnet = await createTestnet(t)
    const panel = await startPanel(t, { testnet, users: [alice] })
    const player = await sdkViewer(t, testnet, panel, alice)
    await panel.api('DELETE', `/api/users/alice/devices/${player.session()!.deviceId}`)
    await expect(player.report({ channel: 'news', category: 'black-screen' })).rejects.toMatchObject({ code: 'SDK_REPORT_REJECTED', message: expect.stringContaining('unauthorized') })
  })

  it("REPORTS_RETENTION_DAYS=0: no report files, 'unknown method' on the wire, 'unsupported' in the SDK", async (t) => {
    const testnet = await createTestnet(t)
    const panel = await startPanel(t, { testnet, users: [alice], env: { REPORTS_RETENTION_DAYS: '0' } })
    const player = await sdkViewer(t, testnet, panel, alice)
    expect(await player.report({ channel: 'news', category: 'buffering' })).toEqual({ status: 'unsupported' })
    const viewers = await link(t, testnet, panel)
    const [d] = await enrollDevices(viewers, [alice], 1)
    await expect(viewers.rpc.report(report(d!.token, 'news'))).rejects.toMatchObject({ code: 'RPC_UNKNOWN_METHOD', message: 'unknown method' })
    expect(await panel.api('GET', '/api/reports')).toEqual({ enabled: false, reports: [] })
    expect(await panel.api('GET', '/api/alerts')).toEqual({ enabled: false, alerts: [] })
    expect(await panel.api('GET', '/api/reports/summary')).toMatchObject({ enabled: false, retentionDays: 0, total: 0 })
    expect((await panel.call('POST', '/api/reports/r-abc/ack')).status).toBe(409)
    expect(existsSync(join(panel.dataDir, 'reports'))).toBe(false)
  })
})

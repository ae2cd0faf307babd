import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanupAll, createTestnet, startPanel } from '@arus/testkit'
import { enrollDevices, link, receiver, report } from './helpers.js'

// Issue 14: the report commands beside a running panel. ack-report and resolve-report run as
// separate processes while the panel ingests; neither the CLI's changes nor the panel's new
// reports are lost (the file lock and the forward-only merge, docs/panel.md), and both
// survive a kill -9 of the panel.

afterAll(async () => { await cleanupAll() }, 60_000)

describe('report commands beside a running panel', () => {
  it('ack and resolve from the CLI while the panel ingests lose nothing, even across kill -9', async (t) => {
    const testnet = await createTestnet(t)
    const hook = await receiver(t)
    const user = { name: 'dora', password: 'dora-pw' }
    const panel = await startPanel(t, {
      testnet,
      users: [user],
      env: { REPORTS_MAX_PER_WINDOW: '10000', REPORTS_GLOBAL_PER_MIN: '100000', REPORTS_ALERT_COUNT: '1000', REPORTS_WEBHOOK_URL: `${hook.url}/w/token123` }
    })
    const viewers = await link(t, testnet, panel)
    const devices = await enrollDevices(viewers, [user], 4)
    for (const [i, d] of devices.entries()) expect(await viewers.rpc.request('report', { v: 1, ...report(d.token, `first${i}`) })).toEqual({ v: 1, ok: true })
    const listed = await panel.cli(['list-reports'])
    expect(listed.reports).toHaveLength(4)
    const [r1, r2] = listed.reports.map((r: { id: string }) => r.id) as string[]

    // The panel ingests 400 reports (each on its own channel: 400 records) while two CLI processes change r1 and r2.
    let sent = 0
    let cliRun: Promise<unknown> = Promise.resolve()
    const ingest = (async () => {
      for (let round = 0; round < 100; round++) {
        // The last round waits for both CLI commands, so they always finish while the panel
        // still ingests (a fast ingest once outran two process start-ups).
        if (round === 99) await cliRun.catch(() => {})
        const replies = await Promise.all(devices.map((d, i) => viewers.rpc.request('report', { v: 1, ...report(d.token, `live-${round}-${i}`) })))
        for (const r of replies) { expect(r).toEqual({ v: 1, ok: true }); sent++ }
      }
    })()
    const cli = Promise.all([panel.cli(['ack-report', r1!]), panel.cli(['resolve-report', r2!, 'fixed upstream'])])
    cliRun = cli
    const [acked, resolved] = await cli
    const sentWhenCliDone = sent
    await ingest
    expect(sentWhenCliDone).toBeGreaterThan(0) // the CLI really ran while the panel was writing
    expect(sentWhenCliDone).toBeLessThan(400)
    expect(sent).toBe(400)
    expect(acked.report).toMatchObject({ id: r1, status: 'ack' })
    expect(resolved.report).toMatchObject({ id: r2, status: 'resolved', note: 'fixed upstream' })

    const check = async () => {
      const { reports } = await panel.api('GET', '/api/reports?limit=1000')
      expect(reports).toHaveLength(404)
      const byId = new Map(reports.map((r: { id: string }) => [r.id, r]))
      expect(byId.get(r1)).toMatchObject({ status: 'ack', ackAt: expect.any(Number) })
      expect(byId.get(r2)).toMatchObject({ status: 'resolved', note: 'fixed upstream' })
    }
    await check()
    // The CLI reads what the panel wrote: the same 404 records, and the panel's view of r1.
    expect((await panel.cli(['list-reports', '--limit', '1000'])).reports).toHaveLength(404)
    expect((await panel.cli(['list-reports', '--status', 'ack'])).reports.map((r: { id: string }) => r.id)).toEqual([r1])

    // Every acknowledged report and status change is on disk: kill -9 and start again.
    await panel.proc!.stop('SIGKILL')
    const onDisk = JSON.parse(readFileSync(join(panel.dataDir, 'reports', 'reports.json'), 'utf8'))
    expect(onDisk.reports).toHaveLength(404)
    await panel.stop() // the slot forgets the killed process
    await panel.start()
    await check()

    // A bad id is refused with its code; list-alerts reads; test-notify uses the shell's REPORTS_* targets.
    await expect(panel.cli(['ack-report', 'r-nope'])).rejects.toThrow(/REPORTS_NOT_FOUND/)
    await expect(panel.cli(['ack-report', '../x'])).rejects.toThrow(/SERVICE_VALIDATION_FAILED/)
    expect(await panel.cli(['list-alerts'])).toEqual({ enabled: true, alerts: [] })
    const notify = await panel.cli(['test-notify'])
    expect(notify).toEqual({ enabled: true, targets: ['webhook'], results: [{ target: 'webhook', ok: true, status: 200, attempts: 1 }] })
    expect(hook.got.at(-1)!.url).toBe('/w/token123')
    expect(JSON.parse(hook.got.at(-1)!.body).title).toBe('arus: test notification')
    expect(await panel.api('POST', '/api/reports/test-notify')).toMatchObject({ enabled: true, results: [{ target: 'webhook', ok: true }] })
  }, 120_000)
})

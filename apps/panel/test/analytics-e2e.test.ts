import { readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fromHex, generateSigningKeyPair, oprf, randomBytes, solvePow, toHex } from '@arus/crypto'
import { RpcError } from '@arus/rpc'
import { createTestnet, linkToPanel, startPanel, viewerLogin, WrongPasswordError, type PanelLink } from '@arus/testkit'
import { dayTotals, filesUnder, findNeedles } from './analytics-helpers.js'

// A real `arus-panel run` process on a local testnet (run `pnpm exec tsc -b` first: it runs
// dist/). Viewers log in over the real RPC; the admin API must then count exactly, and no
// analytics file may hold a username or a device id.

const ANNA = { name: 'anna-viewer-q7', password: 'anna-pw' }
const BEN = { name: 'ben-viewer-k2', password: 'ben-pw' }
const CLEO = { name: 'cleo-viewer-m5', password: 'cleo-pw' }
const DORA = { name: 'dora-disabled-z3', password: 'dora-pw' }
const GHOST = 'ghost-viewer-x9' // no such account

async function reason (p: Promise<unknown>): Promise<string | undefined> {
  const err = await p.then(() => null, (e: unknown) => e)
  expect(err).toBeInstanceOf(RpcError)
  return (err as RpcError).reason
}

/** A session call whose signatures are not the account's: the panel answers unauthorized. */
async function forgedSession (link: PanelLink, username: string): Promise<string | undefined> {
  const hello = await link.rpc.hello()
  const nonce = solvePow(fromHex(hello.challenge, 32), hello.difficulty)
  const { blindedElement } = oprf.blind(new TextEncoder().encode('whatever'))
  await link.rpc.login({ username, blinded: toHex(blindedElement), powNonce: toHex(nonce) })
  return reason(link.rpc.session({ username, deviceId: toHex(generateSigningKeyPair().publicKey), authSig: toHex(randomBytes(64)), deviceSig: toHex(randomBytes(64)) }))
}

type Reply = { enabled: boolean; days: Array<{ date: string; hours: Record<string, any>; day: { uniqueViewers: number } }>; current: any }

function totals (reply: Reply): { ok: number; failed: number; sessions: number; uniqueViewers: number } {
  const sum = { ok: 0, failed: 0, sessions: 0, uniqueViewers: 0 }
  for (const d of reply.days) {
    const t = dayTotals(d)
    sum.ok += t.ok; sum.failed += t.failed; sum.sessions += t.sessions; sum.uniqueViewers += d.day.uniqueViewers
  }
  return sum
}

describe('analytics of a running panel', () => {
  it('counts real logins, sessions and unique viewers exactly and stores no username or device id', async (t) => {
    const testnet = await createTestnet(t)
    const panel = await startPanel(t, { testnet, users: [ANNA, BEN, CLEO, DORA], start: false })
    await panel.cli(['set-status', DORA.name, 'disabled'])
    await panel.start()
    const link = await linkToPanel(t, testnet, panel.panelKey)
    const startDay = new Date().toISOString().slice(0, 10)

    // 6 sessions by 3 distinct viewers (anna three times on two devices, ben twice, cleo once).
    const annaTv = generateSigningKeyPair()
    const devices = [annaTv, annaTv, generateSigningKeyPair(), generateSigningKeyPair(), generateSigningKeyPair(), generateSigningKeyPair()]
    const logins = [ANNA, ANNA, ANNA, BEN, BEN, CLEO]
    for (const [i, u] of logins.entries()) {
      await viewerLogin(link.rpc, link.reader, { username: u.name, password: u.password, device: devices[i]!, label: `tv ${i}` })
    }
    // 3 refusals the panel sees: a disabled account twice, a forged session once.
    for (let i = 0; i < 2; i++) expect(await reason(viewerLogin(link.rpc, link.reader, { username: DORA.name, password: DORA.password }))).toBe('disabled')
    expect(await forgedSession(link, GHOST)).toBe('unauthorized')
    // A wrong password fails on the client after the OPRF step: the panel never learns of it.
    await expect(viewerLogin(link.rpc, link.reader, { username: ANNA.name, password: 'wrong' })).rejects.toBeInstanceOf(WrongPasswordError)

    const reply = await panel.api<Reply>('GET', '/api/analytics')
    const sameDay = new Date().toISOString().slice(0, 10) === startDay
    expect(reply.enabled).toBe(true)
    expect(reply.days.at(-1)!.date).toBe(new Date().toISOString().slice(0, 10))
    const sum = totals(reply)
    expect({ ok: sum.ok, failed: sum.failed, sessions: sum.sessions }).toEqual({ ok: 6, failed: 3, sessions: 6 })
    // Across a UTC midnight each day counts its own viewers, so the sum may exceed 3 then.
    if (sameDay) expect(sum.uniqueViewers).toBe(3)
    else expect(sum.uniqueViewers).toBeGreaterThanOrEqual(3)
    expect(reply.current.onlineApps.samples).toBeGreaterThanOrEqual(1)
    expect(reply.current.catalog).toEqual({ live: 0, redirect: 0, vod: 0 })

    // A restart (SIGTERM flushes) keeps the counts and the day's viewer set.
    await panel.stop()
    const analyticsDir = join(panel.dataDir, 'analytics')
    const saltFile = join(panel.dataDir, 'private', 'analytics-salt.json')
    expect((await stat(saltFile)).mode & 0o777).toBe(0o600)
    const needles = [...new Set([...[ANNA, BEN, CLEO, DORA].map((u) => u.name), GHOST, ...devices.map((d) => toHex(d.publicKey))])]
    const scan = async () => findNeedles([...await filesUnder(analyticsDir), { path: saltFile, text: await readFile(saltFile, 'latin1') }], needles)
    const files = await filesUnder(analyticsDir)
    expect(files.length).toBeGreaterThan(0)
    expect(files.some((f) => f.text.includes('"viewers"'))).toBe(true)
    expect(await scan()).toEqual([])
    // The scan can fail: a planted username (and device id) is found.
    const planted = join(analyticsDir, 'planted.txt')
    await writeFile(planted, `x ${ANNA.name.toUpperCase()} ${toHex(annaTv.publicKey)} y`)
    expect(await scan()).toEqual([`${planted}: ${ANNA.name}`, `${planted}: ${toHex(annaTv.publicKey)}`])
    await rm(planted)

    await panel.start()
    const again = await linkToPanel(t, testnet, panel.panelKey)
    await viewerLogin(again.rpc, again.reader, { username: BEN.name, password: BEN.password, device: devices[3]! })
    const after = totals(await panel.api<Reply>('GET', '/api/analytics'))
    expect({ ok: after.ok, failed: after.failed, sessions: after.sessions }).toEqual({ ok: 7, failed: 3, sessions: 7 })
    if (sameDay && new Date().toISOString().slice(0, 10) === startDay) expect(after.uniqueViewers).toBe(3)
  }, 180_000)

  it('with ANALYTICS_RETENTION_DAYS=0 answers enabled false and writes no analytics files', async (t) => {
    const testnet = await createTestnet(t)
    const panel = await startPanel(t, { testnet, users: [ANNA], env: { ANALYTICS_RETENTION_DAYS: '0' } })
    const link = await linkToPanel(t, testnet, panel.panelKey)
    await viewerLogin(link.rpc, link.reader, { username: ANNA.name, password: ANNA.password })
    expect(await panel.api('GET', '/api/analytics')).toEqual({ enabled: false, retentionDays: 0, days: [], current: null })
    await panel.stop()
    await expect(stat(join(panel.dataDir, 'analytics'))).rejects.toMatchObject({ code: 'ENOENT' })
    await expect(stat(join(panel.dataDir, 'private', 'analytics-salt.json'))).rejects.toMatchObject({ code: 'ENOENT' })
  }, 120_000)
})

import { appendFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanupAll, createStack, freePort, startReseller, waitFor, type HttpClient, type HttpReply, type ResellerHandle, type Stack } from '@arus/testkit'
import { pool, prng, readLedger, replay, type LedgerLine } from './burst.js'

// Issue 16, Done means 2, against the built panel and reseller processes: 1,000 concurrent
// mixed credit operations over HTTP from 13 principals keep the invariant after every line
// (replayed independently from GET /api/ledger), no balance goes negative, totals conserve;
// then a second burst is cut by kill -9, a torn last line is left behind, and after the restart
// every acknowledged operation is in the ledger, the invariant holds, and interrupted
// activations are settled: no credit lost, no panel user without a paid account.

const ctx = { onTestFinished: () => {} }
let stack: Stack
let reseller: ResellerHandle
const clients = new Map<string, HttpClient>()
const supers = ['sup1', 'sup2', 'sup3']
const resellersOf = (s: string) => ['a', 'b', 'c'].map((x) => `${s}-${x}`)
const allResellers = supers.flatMap(resellersOf)

interface Done { kind: string; who: string; reply: HttpReply; account?: string }

beforeAll(async () => {
  const port = await freePort()
  stack = await createStack(ctx, { panel: { env: { ADMIN_PORT: String(port) } } })
  reseller = await startReseller(ctx, { panel: stack.panel, panelUrl: `http://127.0.0.1:${port}` })
  await reseller.api('POST', '/api/principals', { username: 'co1', password: 'co1-password', role: 'co-admin' })
  await reseller.api('POST', '/api/credits/mint', { amount: 100_000 })
  for (const s of supers) {
    await reseller.api('POST', '/api/principals', { username: s, password: `${s}-password`, role: 'super' })
    await reseller.api('POST', '/api/credits/transfer', { to: s, amount: 5000 })
    const sc = reseller.as({ name: s, password: `${s}-password` })
    for (const r of resellersOf(s)) {
      await sc.api('POST', '/api/principals', { username: r, password: `${r}-password`, role: 'reseller' })
      await sc.api('POST', '/api/credits/transfer', { to: r, amount: 40 })
    }
  }
}, 180_000)

afterAll(async () => { await cleanupAll() }, 60_000)

/** Logs every principal in once, one at a time (logins are single-flight). */
async function logInAll (): Promise<void> {
  clients.clear()
  clients.set('root', reseller.as(reseller.root))
  clients.set('co1', reseller.as({ name: 'co1', password: 'co1-password' }))
  for (const n of [...supers, ...allResellers]) clients.set(n, reseller.as({ name: n, password: `${n}-password` }))
  for (const c of clients.values()) await c.api('GET', '/api/me')
}

/** `count` operations drawn from a fixed mix; accounts are created, renewed and deleted as they become known. */
function makeJobs (count: number, seed: number, prefix: string, live: Map<string, string>, deletes: Set<string>): Array<() => Promise<Done>> {
  const rnd = prng(seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!
  const jobs: Array<() => Promise<Done>> = []
  for (let i = 0; i < count; i++) {
    const roll = rnd()
    if (roll < 0.08) {
      const who = pick(['root', 'co1'])
      const to = pick(supers)
      const amount = 1 + Math.floor(rnd() * 5)
      jobs.push(async () => ({ kind: 'mint', who, reply: await clients.get(who)!.call('POST', '/api/credits/mint', { to, amount }) }))
    } else if (roll < 0.33) {
      const s = pick(supers)
      const to = pick(resellersOf(s))
      const amount = 1 + Math.floor(rnd() * 3)
      jobs.push(async () => ({ kind: 'transfer', who: s, reply: await clients.get(s)!.call('POST', '/api/credits/transfer', { to, amount }) }))
    } else if (roll < 0.43) {
      const s = pick(supers)
      const from = pick(resellersOf(s))
      const amount = 1 + Math.floor(rnd() * 4)
      jobs.push(async () => ({ kind: 'reclaim', who: s, reply: await clients.get(s)!.call('POST', '/api/credits/reclaim', { from, amount }) }))
    } else if (roll < 0.7) {
      const who = pick(allResellers)
      const name = `${prefix}${i}`
      const months = 1 + Math.floor(rnd() * 3)
      jobs.push(async () => {
        const reply = await clients.get(who)!.call('POST', '/api/accounts', { name, password: 'pw-of-a-viewer', months })
        if (reply.status === 201) live.set(name, who)
        return { kind: 'activate', who, reply, account: name }
      })
    } else if (roll < 0.85) {
      const months = 1 + Math.floor(rnd() * 2)
      jobs.push(async () => {
        const entry = [...live.entries()][Math.floor(rnd() * live.size)]
        if (!entry) return { kind: 'skip', who: '', reply: { status: 0, body: null } }
        const [name, who] = entry
        return { kind: 'renew', who, account: name, reply: await clients.get(who)!.call('POST', `/api/accounts/${name}/renew`, { months }) }
      })
    } else {
      jobs.push(async () => {
        const entry = [...live.entries()][Math.floor(rnd() * live.size)]
        if (!entry) return { kind: 'skip', who: '', reply: { status: 0, body: null } }
        const [name, who] = entry
        live.delete(name)
        deletes.add(name)
        return { kind: 'delete', who, account: name, reply: await clients.get(who)!.call('DELETE', `/api/accounts/${name}`) }
      })
    }
  }
  return jobs
}

const acked = (d: Done) => d.reply.status >= 200 && d.reply.status < 300

/** Every acknowledged operation is in the ledger as it was answered. */
function checkAcknowledged (done: readonly Done[], lines: readonly LedgerLine[]): void {
  const bySeq = new Map(lines.map((l) => [l.seq, l]))
  for (const d of done.filter(acked)) {
    if (d.kind === 'mint' || d.kind === 'transfer' || d.kind === 'reclaim') {
      expect(bySeq.get(d.reply.body.line.seq), `${d.kind} #${d.reply.body.line.seq}`).toEqual(d.reply.body.line)
    } else if (d.kind === 'activate') {
      expect(lines.some((l) => l.type === 'ACTIVATE' && l.account === d.account), `ACTIVATE ${d.account}`).toBe(true)
    } else if (d.kind === 'renew') {
      expect(lines.some((l) => l.type === 'RENEW' && l.account === d.account), `RENEW ${d.account}`).toBe(true)
    } else if (d.kind === 'delete' && d.reply.body.refunded > 0) {
      expect(lines.some((l) => l.type === 'REFUND' && l.account === d.account && l.amount === d.reply.body.refunded), `REFUND ${d.account}`).toBe(true)
    }
  }
}

async function healthLedger (): Promise<{ seq: number; invariantOk: boolean }> {
  return (await reseller.call('GET', '/healthz')).body.ledger
}

describe('credit ledger under load and crash', () => {
  it('1,000 concurrent mixed operations keep the invariant after every line; kill -9 mid-burst loses nothing acknowledged', async () => {
    await logInAll()
    const live = new Map<string, string>()
    // The invariant as /healthz reports it, sampled all through the burst.
    const samples: boolean[] = []
    let sampling = true
    const sampler = (async () => { while (sampling) { samples.push((await healthLedger()).invariantOk); await new Promise((r) => setTimeout(r, 50)) } })()
    const deletes = new Set<string>()
    const results = await pool(makeJobs(1000, 16, 'b1-', live, deletes), 32)
    sampling = false
    await sampler
    const done = results.map((r) => { if (r.status === 'rejected') throw r.reason; return r.value }).filter((d) => d.kind !== 'skip')
    // Refusals are only the expected ones: 402 (balance), or a renew/delete racing a delete.
    for (const d of done.filter((x) => !acked(x))) {
      const code = d.reply.body?.error?.code
      expect([402, 404, 409], `${d.kind} ${d.reply.status} ${code}`).toContain(d.reply.status)
    }
    const counts = Object.fromEntries(['mint', 'transfer', 'reclaim', 'activate', 'renew', 'delete'].map((k) => [k, done.filter((d) => d.kind === k && acked(d)).length]))
    expect(counts.activate).toBeGreaterThan(50)
    expect(counts.delete).toBeGreaterThan(10)
    expect(counts.renew).toBeGreaterThan(10)
    expect(done.some((d) => d.reply.status === 402)).toBe(true)
    expect(samples.length).toBeGreaterThan(5)
    expect(samples.every(Boolean)).toBe(true)

    const lines = await readLedger(clients.get('root')!)
    const { balances, minted, consumed } = replay(lines)
    expect([...balances.values()].every((b) => b >= 0)).toBe(true)
    expect(minted - consumed).toBe([...balances.values()].reduce((a, b) => a + b, 0))
    checkAcknowledged(done, lines)
    expect(await healthLedger()).toEqual({ seq: lines.length, invariantOk: true })
    for (const [name, bal] of balances) expect((await reseller.api('GET', `/api/principals/${name}`)).balance, name).toBe(bal)
    const verified = await reseller.cli(['verify-ledger'])
    expect(verified).toMatchObject({ seq: lines.length, invariantOk: true, tornBytes: 0 })

    // Second burst, cut by kill -9 once 150 operations are acknowledged.
    const done2: Done[] = []
    let killed = false
    const jobs = makeJobs(600, 17, 'b2-', live, deletes).map((job) => async () => {
      if (killed) return { kind: 'skip', who: '', reply: { status: 0, body: null } } satisfies Done
      const d = await job().catch(() => ({ kind: 'lost', who: '', reply: { status: 0, body: null } }) satisfies Done)
      done2.push(d)
      if (!killed && done2.filter(acked).length >= 150) {
        killed = true
        reseller.proc!.child.kill('SIGKILL')
      }
      return d
    })
    await pool(jobs, 32)
    expect(killed).toBe(true)
    await reseller.proc!.waitForExit()
    // A write cut by the crash: half a line without its newline.
    await appendFile(join(reseller.dataDir, 'ledger.jsonl'), '{"seq":999999,"ts":1,"actor":"ro')
    expect((await reseller.cli(['verify-ledger'])).tornBytes).toBeGreaterThan(0)
    await reseller.stop()
    await reseller.start()
    await logInAll()
    expect((await reseller.cli(['verify-ledger'])).tornBytes).toBe(0)

    // Interrupted activations and deletes are settled at boot.
    await waitFor(async () => {
      const page = await clients.get('root')!.api('GET', '/api/accounts?limit=500&filter=active')
      const all = await clients.get('root')!.api('GET', '/api/accounts?limit=500')
      return all.items.every((a: { status: string }) => a.status !== 'pending') && page.total >= 0
    }, { timeoutMs: 30_000, message: 'pending accounts settled' })
    const after = await readLedger(clients.get('root')!)
    const replayed = replay(after)
    expect(after.slice(0, lines.length)).toEqual(lines)
    checkAcknowledged(done2, after)
    expect(await healthLedger()).toEqual({ seq: after.length, invariantOk: true })
    expect(replayed.minted - replayed.consumed).toBe([...replayed.balances.values()].reduce((a, b) => a + b, 0))

    // No account without payment, no payment without an account.
    const accounts: Array<{ name: string }> = (await clients.get('root')!.api('GET', '/api/accounts?limit=500')).items
    const names = new Set(accounts.map((a) => a.name))
    const panelUsers: string[] = []
    let afterName: string | null = null
    for (let p = 0; p < 20; p++) {
      const r: { users: Array<{ username: string }>; next: string | null } = await stack.panel.api('GET', `/api/users?limit=1000${afterName ? `&after=${afterName}` : ''}`)
      panelUsers.push(...r.users.map((u) => u.username))
      if (r.next === null) break
      afterName = r.next
    }
    expect(panelUsers.filter((u) => u.startsWith('b1-') || u.startsWith('b2-')).sort()).toEqual([...names].sort())
    const refundedSeqs = new Set(after.filter((l) => l.ref?.startsWith('refund:')).map((l) => Number(l.ref!.slice(7))))
    for (const l of after.filter((x) => x.type === 'ACTIVATE' && !refundedSeqs.has(x.seq))) {
      expect(names.has(l.account!) || deletes.has(l.account!), `paid activation of ${l.account}`).toBe(true)
    }
  })
})

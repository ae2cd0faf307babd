/**
 * Login with key schedule 2 (issue 40, docs/benchmarks.md "Login key schedule 2"): fresh viewers
 * log in one after another against a panel at its production costs (Argon2id 64 MiB / 3 passes,
 * proof of work 12 bits), in two runtimes:
 *
 * - Node: the SDK in this process (a fresh player and store per login), `diagnostics().lastLogin`
 *   giving the phase table;
 * - Bare: the engine worklet bundle under the real `bare` CLI (a fresh worklet and store per
 *   login), timed from the `login` command to the `logged-in` status, with the worklet's peak
 *   RSS (VmHWM) before and after the login.
 *
 * Each runtime logs in as `deflt` (an account at the default cost) and as `cheap` (the same
 * panel, an account at libsodium's minimum cost, 8 KiB / 1 pass), alternating: the difference is
 * what the Argon2id at the recorded cost adds to a login there.
 *
 *   pnpm exec tsc -b && pnpm exec tsx scripts/bench/login-schedule.ts [logins=8]
 */
import { register } from 'node:module'
import { readFileSync } from 'node:fs'

register('../docs/alias-hooks.mjs', import.meta.url)
const { ARUS_BINS, cleanupAll, createTestnet, runBinJson, startPanel, tmpDir } = await import('@arus/testkit')
const { createPlayer } = await import('@arus/sdk')
const { buildBundle, startWorklet } = await import('../../test/mobile/worklet-host.js')

const LOGINS = Math.min(30, Math.max(1, Number(process.argv[2] ?? 8)))
const ctx = { onTestFinished: () => {} }
const USERS = { deflt: 'deflt-viewer-pw', cheap: 'cheap-viewer-pw' } as const
type Name = keyof typeof USERS

const median = (xs: number[]): number => {
  const v = [...xs].sort((a, b) => a - b)
  return v.length === 0 ? NaN : v.length % 2 === 1 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2
}
const kib = (pid: number, field: 'VmHWM' | 'VmRSS'): number => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)

const testnet = await createTestnet(ctx)
const panel = await startPanel(ctx, { testnet, testEnv: false, start: false, users: [{ name: 'deflt', password: USERS.deflt }] })
await runBinJson(ARUS_BINS.panel, ['create-user', 'cheap'], { env: { ...panel.env, ARGON2_MEM_KIB: '8', ARGON2_OPS: '1' }, input: `${USERS.cheap}\n` })
await panel.start()
for (let i = 0; i < 10; i++) {
  await panel.api('POST', '/api/streams', { id: `s${i}`, title: `Stream ${i}` })
  for (const u of Object.keys(USERS)) await panel.api('POST', `/api/users/${u}/grants`, { streamId: `s${i}` })
}
const users = await panel.api<{ users: Array<{ username: string; keyVersion: number }> }>('GET', '/api/users')
console.log('accounts:', users.users.map((u) => `${u.username} on schedule ${u.keyVersion}`).join('; '), '(deflt: 64 MiB / 3 passes, cheap: 8 KiB / 1 pass)')

const node: Record<Name, { ms: number[]; phases: Array<Array<{ name: string; startMs: number; ms: number }>> }> = { deflt: { ms: [], phases: [] }, cheap: { ms: [], phases: [] } }
const bare: Record<Name, { ms: number[]; hwmBefore: number[]; hwmAfter: number[] }> = { deflt: { ms: [], hwmBefore: [], hwmAfter: [] }, cheap: { ms: [], hwmBefore: [], hwmAfter: [] } }
const { bundle } = buildBundle(ctx)

for (let i = 0; i < LOGINS; i++) {
  for (const name of (i % 2 === 0 ? ['deflt', 'cheap'] : ['cheap', 'deflt']) as Name[]) {
    const p = createPlayer({ panelPubKey: panel.panelKey, storeDir: tmpDir(ctx, 'arus-bench-login-'), swarm: { bootstrap: testnet.bootstrap } })
    await p.connect()
    const t0 = performance.now()
    await p.login(name, USERS[name])
    node[name].ms.push(performance.now() - t0)
    node[name].phases.push(p.diagnostics().lastLogin?.phases ?? [])
    await p.stop()

    const w = startWorklet(ctx, bundle, tmpDir(ctx, 'arus-bench-login-bare-'))
    await w.next((m) => m.type === 'prefs', { timeoutMs: 30_000 })
    w.send({ cmd: 'start', panelPubKey: panel.panelKey, swarm: { bootstrap: testnet.bootstrap } })
    await w.next((m) => m.type === 'status' && m.state === 'ready', { timeoutMs: 60_000, what: 'ready' })
    bare[name].hwmBefore.push(kib(w.proc.pid!, 'VmHWM'))
    const from = w.messages.length
    const b0 = performance.now()
    w.send({ cmd: 'login', username: name, password: USERS[name] })
    const answer = await w.next((m) => m.type === 'login-error' || (m.type === 'status' && m.state === 'logged-in'), { from, timeoutMs: 60_000, what: 'login' })
    if (answer.type !== 'status') throw new Error(`bare login failed: ${JSON.stringify(answer)}`)
    bare[name].ms.push(performance.now() - b0)
    bare[name].hwmAfter.push(kib(w.proc.pid!, 'VmHWM'))
    w.send({ cmd: 'stop' })
    await w.exited(20_000).catch(() => w.kill())
  }
}

const f = (x: number): string => x.toFixed(1)
console.log(`\n${LOGINS} fresh logins per account and runtime, alternating (medians; min-max):`)
for (const name of Object.keys(USERS) as Name[]) {
  console.log(`  node ${name}: login ${f(median(node[name].ms))} ms (${f(Math.min(...node[name].ms))}-${f(Math.max(...node[name].ms))})`)
  console.log(`  bare ${name}: login ${f(median(bare[name].ms))} ms (${f(Math.min(...bare[name].ms))}-${f(Math.max(...bare[name].ms))}); peak RSS ${f(median(bare[name].hwmBefore) / 1024)} → ${f(median(bare[name].hwmAfter) / 1024)} MiB`)
}
console.log(`  Argon2id at the default cost adds: node ${f(median(node.deflt.ms) - median(node.cheap.ms))} ms, bare ${f(median(bare.deflt.ms) - median(bare.cheap.ms))} ms`)
console.log('\nNode phases of the default-cost logins (median start, median duration):')
const names = [...new Set(node.deflt.phases.flat().map((ph) => ph.name))]
for (const n of names) {
  const xs = node.deflt.phases.flatMap((ps) => ps.filter((ph) => ph.name === n))
  console.log(`| ${n} | ${f(median(xs.map((x) => x.startMs)))} | ${f(median(xs.map((x) => x.ms)))} |`)
}
await cleanupAll()
process.exit(0)

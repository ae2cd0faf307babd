/**
 * Traces an admin edit on its way to a viewer (issue 21, docs/architecture.md "Edit
 * propagation"): the built panel daemon on a local testnet, a viewer (@arus/sdk) in this
 * process; for each of N title edits (PATCH over a kept-alive node:http connection) it records
 * when the answer came, when the viewer's catalog core appended the edit, and when 'streams'
 * fired, in ms after the request was sent.
 *
 *   pnpm exec tsc -b && pnpm exec tsx scripts/trace-propagation.ts [edits=25] [others=0] [pauseMs=200]
 *
 * `others`: that many more viewers (in this process) stay logged in meanwhile, so the panel
 * answers a whole audience for every edit.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cleanupAll, createStack } from '@arus/testkit'
import { createPlayer, type DisplayItem } from '../packages/sdk/dist/index.js'
import { adminClient } from './bench/stack.js'

const EDITS = Math.min(500, Math.max(1, Number(process.argv[2] ?? 25)))
const OTHERS = Math.min(32, Math.max(0, Number(process.argv[3] ?? 0)))
const PAUSE_MS = Math.min(120_000, Math.max(0, Number(process.argv[4] ?? 200)))
const USER = { name: 'tracer', password: 'tracer-pw-123456' }
const ADMIN = { name: 'admin', password: 'trace-admin-pw' }
const now = (): number => performance.timeOrigin + performance.now()

const store = await mkdtemp(join(tmpdir(), 'arus-trace-'))
const kit = await createStack(undefined, { panel: { admin: ADMIN, users: [USER], testEnv: false } })
try {
  const call = adminClient(kit.panel.adminUrl!, ADMIN)
  await call('POST', '/api/streams', { id: 'ch1', title: 'Channel 1' })
  await call('POST', `/api/users/${USER.name}/grants`, { streamId: 'ch1' })
  const viewer = (dir: string) => createPlayer({ panelPubKey: kit.panel.panelKey, storeDir: dir, swarm: { bootstrap: kit.bootstrap.split(',').map((hp) => ({ host: hp.split(':')[0]!, port: Number(hp.split(':')[1]) })) } })
  const others = []
  for (let i = 0; i < OTHERS; i++) {
    const p = viewer(join(store, `other-${i}`))
    others.push(p)
    await p.connect()
    await p.login(USER.name, USER.password)
  }
  const player = viewer(join(store, 'traced'))
  await player.connect()
  await player.login(USER.name, USER.password)
  const core = (player as unknown as { catalog: { bee: { core: { on (e: string, f: () => void): void; off (e: string, f: () => void): void } } } }).catalog.bee.core
  const rows: Array<{ answered: number; appended: number; streams: number }> = []
  for (let i = 0; i < EDITS; i++) {
    const title = `edit ${i}`
    let appended = 0
    const onAppend = (): void => { appended ||= now() }
    core.on('append', onAppend)
    let streams = 0
    const seen = new Promise<void>((resolve) => {
      const on = (list: DisplayItem[]): void => { if (list.find((x) => x.id === 'ch1')?.title === title) { streams = now(); player.off('streams', on); resolve() } }
      player.on('streams', on)
    })
    const t0 = now()
    await call('PATCH', '/api/streams/ch1', { title }) // throws unless 2xx
    const answered = now()
    await Promise.race([seen, new Promise((_resolve, reject) => setTimeout(() => reject(new Error('no streams event in 10 s')), 10_000))])
    // 'streams' can come first: a live edit is reported once verified, before it is stored.
    for (let w = 0; w < 200 && appended === 0; w++) await new Promise((resolve) => setTimeout(resolve, 5))
    core.off('append', onAppend)
    rows.push({ answered: answered - t0, appended: appended - t0, streams: streams - t0 })
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS))
  }
  const median = (xs: number[]): number => { const v = [...xs].sort((a, b) => a - b); return v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2 }
  const fmt = (k: keyof typeof rows[number]): string => `${median(rows.map((r) => r[k])).toFixed(2)} ms (min ${Math.min(...rows.map((r) => r[k])).toFixed(2)}, max ${Math.max(...rows.map((r) => r[k])).toFixed(2)})`
  console.log(`${EDITS} title edits (${OTHERS} other viewers logged in), medians after the PATCH was sent:`)
  console.log(`  PATCH answered            ${fmt('answered')}`)
  console.log(`  viewer's catalog append   ${fmt('appended')}`)
  console.log(`  'streams' emitted         ${fmt('streams')}`)
  await player.stop()
  for (const p of others) await p.stop()
} finally {
  await kit.close().catch(() => {})
  await cleanupAll()
  await rm(store, { recursive: true, force: true })
}

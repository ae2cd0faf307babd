/**
 * Engine worklet benchmark (issue 19): the size of the Bare bundle (desktop and linked mobile
 * builds) and the worklet's RSS while it plays. Not a test: it builds the bundles with
 * packages/sdk/scripts/bundle-worklet.mjs, starts a local testnet with the built panel and
 * broadcaster (one `test` channel at the broadcaster's defaults: 640x360, 4 s segments), runs
 * the worklet under the real Bare runtime over its stdin/stdout protocol, logs in, plays the
 * channel, and has ffmpeg read the local URL at realtime speed (`-re`) while VmRSS of the bare
 * process is sampled every second. Prints, and with no flags writes, the "Engine worklet"
 * block of docs/benchmarks.md.
 *
 *   pnpm exec tsc -b && pnpm exec tsx scripts/bench-worklet.ts [--seconds 30] [--no-doc]
 */
import { register } from 'node:module'
import { spawn, spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

register('./docs/alias-hooks.mjs', import.meta.url)
const { cleanupAll, createStack, tmpDir } = await import('@arus/testkit')
const { startWorklet } = await import('../test/mobile/worklet-host.js')

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] ?? fallback : fallback
}
const SECONDS = Number(arg('seconds', '30'))
const WRITE_DOC = SECONDS === 30 && !process.argv.includes('--no-doc')
const DOC = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url))
const SCRIPT = fileURLToPath(new URL('../packages/sdk/scripts/bundle-worklet.mjs', import.meta.url))
const ctx = { onTestFinished: () => {} }
const MiB = (n: number): string => (n / 1024 / 1024).toFixed(1)

function bundleInto (out: string, args: string[]): void {
  const r = spawnSync(process.execPath, [SCRIPT, '--out', out, ...args], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`bundle-worklet failed: ${r.stderr}`)
}

function treeBytes (dir: string): number {
  let total = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) total += e.isDirectory() ? treeBytes(join(dir, e.name)) : statSync(join(dir, e.name)).size
  return total
}

function rssOf (pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m === null ? 0 : Number(m[1]) * 1024
}

async function main (): Promise<void> {
  const desktop = tmpDir(ctx, 'arus-bench-worklet-')
  const mobile = tmpDir(ctx, 'arus-bench-worklet-m-')
  bundleInto(desktop, [])
  bundleInto(mobile, ['--linked', '--host', 'android-arm64', '--host', 'ios-arm64'])
  const sizes = {
    desktopBundle: statSync(join(desktop, 'arus-engine.bundle')).size,
    desktopAddons: treeBytes(join(desktop, 'node_modules')),
    mobileBundle: statSync(join(mobile, 'arus-engine.bundle')).size,
    mobileBase64: statSync(join(mobile, 'arus-engine.bundle.base64')).size
  }

  const stack = await createStack(ctx, { panel: { users: [{ name: 'alice', password: 'alice-pw' }] }, broadcasters: [{ testEnv: false, env: { ARGON2_MEM_KIB: '8', ARGON2_OPS: '1', RESUME_PACE: '0' } }] })
  await stack.broadcasters[0]!.api('POST', '/api/channels', { id: 'test', title: 'Test', input: 'test' })
  await stack.broadcasters[0]!.api('POST', '/api/channels/test/start')
  for (let i = 0; i < 120 && !(await stack.broadcasters[0]!.api<{ registered: boolean }>('GET', '/api/channels/test')).registered; i++) await sleep(500)
  await stack.panel.api('POST', '/api/users/alice/grants', { streamId: 'test' })

  const w = startWorklet(ctx, join(desktop, 'arus-engine.bundle'), tmpDir(ctx, 'arus-bench-worklet-data-'))
  await w.next((m) => m.type === 'prefs', { timeoutMs: 30_000 })
  const idle = rssOf(w.proc.pid!)
  w.send({ cmd: 'start', panelPubKey: stack.panel.panelKey, swarm: { bootstrap: stack.testnet!.bootstrap } })
  await w.next((m) => m.type === 'port', { timeoutMs: 60_000 })
  w.send({ cmd: 'login', username: 'alice', password: 'alice-pw' })
  await w.next((m) => m.type === 'status' && m.state === 'logged-in', { timeoutMs: 90_000 })
  const loggedIn = rssOf(w.proc.pid!)
  w.send({ cmd: 'play', streamId: 'test' })
  const playing = await w.next((m) => m.type === 'status' && m.state === 'playing', { timeoutMs: 90_000 })
  const ff = spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-re', '-i', playing.url, '-t', String(SECONDS + 10), '-f', 'null', '-'], { stdio: 'ignore' })
  await sleep(5_000)
  const samples: number[] = []
  for (let i = 0; i < SECONDS; i++) { samples.push(rssOf(w.proc.pid!)); await sleep(1000) }
  ff.kill('SIGKILL')
  w.send({ cmd: 'stop' })
  await w.exited(20_000).catch(() => w.kill())
  await stack.close()
  await cleanupAll()

  const mean = samples.reduce((a, b) => a + b, 0) / samples.length
  const max = Math.max(...samples)
  const body = [
    `Measured by \`scripts/bench-worklet.ts\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model.split(' ').slice(0, 2).join(' ') ?? 'CPU'}, Bare ${spawnSync(join(fileURLToPath(new URL('../packages/sdk/node_modules/bare-runtime-linux-x64/bin/bare', import.meta.url))), ['--version'], { encoding: 'utf8' }).stdout.trim()}.`,
    `The worklet runs under the \`bare\` CLI on this machine (linux-x64), speaking the engine IPC over stdin/stdout; a \`test\` channel at the broadcaster's defaults (640x360, 4 s segments), played for ${SECONDS} s by ffmpeg reading the local URL at realtime speed (\`-re\`), after 5 s of warm-up; VmRSS sampled once a second.`,
    '',
    '| Figure | Value |',
    '|---|---|',
    `| Bundle, desktop (\`arus-engine.bundle\`, addons offloaded) | ${MiB(sizes.desktopBundle)} MiB JS + ${MiB(sizes.desktopAddons)} MiB linux-x64 addons beside it |`,
    `| Bundle, mobile (\`--linked\`, android-arm64 + ios-arm64) | ${MiB(sizes.mobileBundle)} MiB (${MiB(sizes.mobileBase64)} MiB as base64); the addons are the app's linked native libraries |`,
    `| Worklet RSS at boot (bundle loaded, prefs sent, before \`start\`) | ${MiB(idle)} MiB |`,
    `| Worklet RSS after login | ${MiB(loggedIn)} MiB |`,
    `| Worklet RSS while playing: mean / max | ${MiB(mean)} / ${MiB(max)} MiB |`
  ].join('\n')
  console.log(body)
  if (WRITE_DOC) {
    let doc = readFileSync(DOC, 'utf8')
    const begin = '<!-- bench-worklet:begin -->'
    const end = '<!-- bench-worklet:end -->'
    const block = `${begin}\n${body}\n${end}`
    doc = doc.includes(begin) && doc.includes(end) ? doc.slice(0, doc.indexOf(begin)) + block + doc.slice(doc.indexOf(end) + end.length) : `${doc.trimEnd()}\n\n## Engine worklet (Bare)\n\n${block}\n`
    writeFileSync(DOC, doc)
  }
}

main().then(() => process.exit(0), async (err) => {
  console.error(err)
  await cleanupAll().catch(() => {})
  process.exit(1)
})

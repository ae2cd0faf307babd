/**
 * Broadcaster benchmark (issue 4 "Done means": RSS and CPU per channel for N = 1, 2, 4
 * copy-mode channels on this machine). Not a test: it measures and writes the figures into
 * the "Broadcaster" section of docs/benchmarks.md.
 *
 *   pnpm exec tsc -b && pnpm exec tsx scripts/bench-broadcaster.ts [--seconds 30] [--warmup 10]
 *
 * For each N it starts a fresh `arus-broadcaster run` (built dist, testkit's
 * spawnBroadcasterDaemon) on a local DHT testnet,
 * adds N channels whose input is a looped 1280x720 H.264/AAC file (transcode null: copy),
 * starts them, waits for every channel to be up, lets it settle for the warm-up, then
 * samples the daemon and its ffmpeg children from /proc for the measuring window: CPU time
 * (utime + stime) over wall time, and RSS (mean of one sample per second). No viewer is
 * connected: this is the cost of ingesting, mirroring and seeding a channel.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { ARUS_BINS, createHttpClient, createTestnet, runBin, spawnBroadcasterDaemon } from '@arus/testkit'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))
const DOC = join(root, 'docs/benchmarks.md')
const TICK = 100 // CLK_TCK on Linux
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}
const SECONDS = arg('seconds', 30)
const WARMUP = arg('warmup', 10)
const COUNTS = [1, 2, 4]

interface ProcSample { cpuTicks: number; rssKiB: number }

async function proc (pid: number): Promise<ProcSample | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const status = await readFile(`/proc/${pid}/status`, 'utf8')
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
    return { cpuTicks: Number(fields[11]) + Number(fields[12]), rssKiB: rss }
  } catch {
    return null
  }
}

async function children (pid: number): Promise<number[]> {
  const out: number[] = []
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const status = await readFile(`/proc/${name}/status`, 'utf8').catch(() => '')
    if (new RegExp(`^PPid:\\s+${pid}$`, 'm').test(status)) out.push(Number(name))
  }
  return out
}

interface Result { n: number; daemonCpu: number; ffmpegCpu: number; daemonRssMiB: number; ffmpegRssMiB: number; load: number }

async function measure (n: number, bootstrap: string, source: string, work: string): Promise<Result> {
  // No panel: channels run and seed unregistered. Info-level logs are quiet once channels run.
  const env = { DATA_DIR: join(work, `bc-${n}`), BOOTSTRAP: bootstrap, CONTROL_ENABLED: '1', CONTROL_PORT: '0', LOG_LEVEL: 'info', ARGON2_MEM_KIB: '8', ARGON2_OPS: '1' }
  const operator = { name: 'bench', password: 'bench' }
  const added = await runBin(ARUS_BINS.broadcaster, ['add-admin', operator.name], { env, input: `${operator.password}\n` })
  if (added.code !== 0) throw new Error(`add-admin: ${added.stderr}`)
  const started = await spawnBroadcasterDaemon(undefined, env)
  const daemon = started.proc.child
  try {
    const http = createHttpClient(started.url!, { login: operator })
    for (let i = 0; i < n; i++) {
      await http.api('POST', '/api/channels', { id: `bench${i}`, input: { kind: 'file', path: source }, transcode: null, hlsTime: 4, hlsListSize: 6 })
      await http.api('POST', `/api/channels/bench${i}/start`)
    }
    for (let i = 0; i < 120; i++) {
      const { channels } = await http.api<{ channels: Array<{ state: string }> }>('GET', '/api/channels')
      if (channels.every((c) => c.state === 'up')) break
      await sleep(500)
    }
    await sleep(WARMUP * 1000)
    const pids = async () => ({ daemon: daemon.pid!, ffmpeg: await children(daemon.pid!) })
    const ticks = async (p: { daemon: number; ffmpeg: number[] }) => {
      const d = await proc(p.daemon)
      const f = await Promise.all(p.ffmpeg.map(proc))
      return { daemon: d?.cpuTicks ?? 0, ffmpeg: f.reduce((a, s) => a + (s?.cpuTicks ?? 0), 0), daemonRss: d?.rssKiB ?? 0, ffmpegRss: f.reduce((a, s) => a + (s?.rssKiB ?? 0), 0) }
    }
    const p = await pids()
    if (p.ffmpeg.length !== n) throw new Error(`expected ${n} ffmpeg children, found ${p.ffmpeg.length}`)
    const start = await ticks(p)
    const t0 = Date.now()
    const rss: Array<{ d: number; f: number }> = []
    for (let s = 0; s < SECONDS; s++) {
      await sleep(1000)
      const now = await ticks(p)
      rss.push({ d: now.daemonRss, f: now.ffmpegRss })
    }
    const end = await ticks(p)
    const load = loadavg()[0]!
    const wall = (Date.now() - t0) / 1000
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
    return {
      n,
      daemonCpu: ((end.daemon - start.daemon) / TICK / wall) * 100,
      ffmpegCpu: ((end.ffmpeg - start.ffmpeg) / TICK / wall) * 100,
      daemonRssMiB: mean(rss.map((r) => r.d)) / 1024,
      ffmpegRssMiB: mean(rss.map((r) => r.f)) / 1024,
      load
    }
  } finally {
    await started.proc.stop('SIGTERM', 15_000)
  }
}

function render (results: Result[], sourceInfo: string): string {
  const f = (x: number) => x.toFixed(1)
  const rows = results.map((r) => {
    const cpu = r.daemonCpu + r.ffmpegCpu
    const rss = r.daemonRssMiB + r.ffmpegRssMiB
    return `| ${r.n} | ${f(r.daemonCpu)} | ${f(r.ffmpegCpu)} | ${f(cpu / r.n)} | ${f(r.daemonRssMiB)} | ${f(r.ffmpegRssMiB)} | ${f(rss / r.n)} |`
  })
  const base = results[0]!
  const last = results[results.length - 1]!
  const marginalRss = (last.daemonRssMiB + last.ffmpegRssMiB - base.daemonRssMiB - base.ffmpegRssMiB) / (last.n - base.n)
  const marginalCpu = (last.daemonCpu + last.ffmpegCpu - base.daemonCpu - base.ffmpegCpu) / (last.n - base.n)
  return [
    `Measured by \`scripts/bench-broadcaster.ts\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}.`,
    `Each channel: ${sourceInfo}, looped (\`-re -stream_loop -1\`), copy mode (transcode null), hlsTime 4, hlsListSize 6, disk buffer, no viewer connected.`,
    `CPU is (utime + stime) / wall time over ${SECONDS} s after a ${WARMUP} s warm-up (100 % = one core); RSS is the mean of one sample per second.`,
    `Per-process CPU time is little affected by other work on the machine, but it was not idle: 1-minute load average ${results.map((r) => r.load.toFixed(1)).join(', ')} at the end of each run.`,
    '',
    '| Channels | daemon CPU % | ffmpeg CPU % (all) | CPU % per channel | daemon RSS MiB | ffmpeg RSS MiB (all) | RSS MiB per channel |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Marginal cost of a channel (from ${base.n} to ${last.n}): ${f(marginalCpu)} % CPU and ${f(marginalRss)} MiB RSS. The daemon's RSS is mostly fixed ` +
      `(Node, RocksDB, the swarm) and moves with V8's heap between runs; each copy-mode ffmpeg adds about ${f(last.ffmpegRssMiB / last.n)} MiB.`
  ].join('\n')
}

async function writeSection (body: string): Promise<void> {
  const begin = '<!-- bench-broadcaster:begin -->'
  const end = '<!-- bench-broadcaster:end -->'
  let doc = await readFile(DOC, 'utf8').catch(() => '# Benchmarks\n')
  const block = `${begin}\n${body}\n${end}`
  if (doc.includes(begin) && doc.includes(end)) {
    doc = doc.slice(0, doc.indexOf(begin)) + block + doc.slice(doc.indexOf(end) + end.length)
  } else {
    doc = `${doc.trimEnd()}\n\n## Broadcaster\n\n${block}\n`
  }
  await writeFile(DOC, doc)
}

const work = await mkdtemp(join(tmpdir(), 'arus-bench-bc-'))
const testnet = await createTestnet()
try {
  const source = join(work, 'source.mp4')
  const sourceInfo = '1280x720 25 fps H.264 (x264 veryfast, ~2.5 Mb/s) + 128 kb/s AAC file, 60 s'
  console.error('[bench] generating the source file')
  await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=25:duration=60', '-f', 'lavfi', '-i', 'sine=duration=60:sample_rate=48000',
    '-c:v', 'libx264', '-preset', 'veryfast', '-b:v', '2500k', '-maxrate', '2500k', '-bufsize', '5000k', '-g', '50', '-c:a', 'aac', '-b:a', '128k', '-shortest', source], { timeout: 300_000 })
  const bootstrap = testnet.bootstrapString
  const results: Result[] = []
  for (const n of COUNTS) {
    console.error(`[bench] ${n} channel(s): warm-up ${WARMUP} s, measuring ${SECONDS} s`)
    const r = await measure(n, bootstrap, source, work)
    console.error(`[bench]   daemon ${r.daemonCpu.toFixed(1)} % ${r.daemonRssMiB.toFixed(1)} MiB, ffmpeg ${r.ffmpegCpu.toFixed(1)} % ${r.ffmpegRssMiB.toFixed(1)} MiB`)
    results.push(r)
  }
  const body = render(results, sourceInfo)
  console.log(body)
  await writeSection(body)
  console.error(`[bench] written to ${DOC}`)
} finally {
  await testnet.destroy()
  await rm(work, { recursive: true, force: true })
}

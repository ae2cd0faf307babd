/**
 * Library ingest benchmark: what one VOD title costs the library box to ingest. Not a test:
 * it runs the built `arus-library` daemon (no panel) on a local DHT testnet on 127.0.0.1,
 * ingests the same generated file twice, once per mode, and prints (and, at the default
 * settings, writes) the "Library ingest" block of docs/benchmarks.md. Exits 1 when an ingest
 * fails.
 *
 *   pnpm exec tsc -b && pnpm exec tsx scripts/bench-library.ts [--seconds 300] [--size 1280x720] [--no-doc]
 *
 * The source: testsrc2 (moving) + a 440 Hz sine, H.264 (x264 veryfast, 2.5 Mb/s, 2 s GOP) +
 * AAC 128 kb/s in MP4, made once with real ffmpeg. The daemon runs its defaults (HLS_TIME 4,
 * INGEST_CONCURRENCY 1) with cheap Argon2id for the control admin. Per title, from the POST
 * to `ready`: wall time (and when the `import` phase began), speed as a multiple of realtime,
 * peak RSS of the daemon (VmRSS sampled every 100 ms) and of its ffmpeg child (the highest
 * VmHWM / VmRSS seen; ffmpeg runs under `setpriv --pdeathsig`, which execs it, so the child is
 * found by name among the daemon's descendants), CPU seconds of both, and disk: the title's
 * `bytes` and the growth of DATA_DIR/store in allocated blocks (st_blocks × 512), per minute
 * of media.
 */
import { register } from 'node:module'
import { spawn } from 'node:child_process'
import { lstat, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

register('./docs/alias-hooks.mjs', import.meta.url)
const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] ?? fallback : fallback
}
const SECONDS = Number(arg('seconds', '300'))
const SIZE = arg('size', '1280x720')
const WRITE_DOC = SECONDS === 300 && SIZE === '1280x720' && !process.argv.includes('--no-doc')
const DOC = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url))
const MODES = ['copy', 'transcode'] as const
const SAMPLE_MS = 100
const POLL_MS = 100
const INGEST_TIMEOUT_MS = 600_000
const TICK = 100 // CLK_TCK on Linux
if (!(SECONDS >= 10 && SECONDS <= 3600) || !/^\d+x\d+$/.test(SIZE)) throw new Error('--seconds must be 10-3600, --size WxH')

const { cleanupAll, createTestnet, startLibrary } = await import('@arus/testkit')

const log = (s: string) => console.error(`[bench] ${s}`)
const mib = (b: number) => Math.round(b / 1048576 * 10) / 10
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d

/** Runs one command to its end; rejects with its stderr on a non-zero exit. */
function run (cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    child.stderr.on('data', (b: Buffer) => { err += b.toString() })
    child.on('error', reject)
    child.on('close', (code) => { if (code === 0) resolve(); else reject(new Error(`${cmd} exited ${String(code)}: ${err.trim()}`)) })
  })
}

async function makeSource (dir: string): Promise<string> {
  const out = join(dir, 'source.mp4')
  await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y',
    '-f', 'lavfi', '-i', `testsrc2=size=${SIZE}:rate=25:duration=${SECONDS}`,
    '-f', 'lavfi', '-i', `sine=frequency=440:duration=${SECONDS}`,
    '-c:v', 'libx264', '-preset', 'veryfast', '-b:v', '2500k', '-maxrate', '2500k', '-bufsize', '5000k',
    '-g', '50', '-keyint_min', '50', '-sc_threshold', '0', '-pix_fmt', 'yuv420p',
    '-c:a', 'aac', '-b:a', '128k', `file:${out}`])
  return out
}

interface ProcInfo { ppid: number; comm: string; ticks: number }

/** One pass over /proc/[pid]/stat: parent, name and CPU ticks (utime + stime) of every process. */
async function processTable (): Promise<Map<number, ProcInfo>> {
  const table = new Map<number, ProcInfo>()
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => null)
    if (stat === null) continue
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    table.set(Number(name), { ppid: Number(fields[1]), comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ticks: Number(fields[11]) + Number(fields[12]) })
  }
  return table
}

function descendants (table: Map<number, ProcInfo>, root: number): number[] {
  const out: number[] = []
  const queue = [root]
  while (queue.length > 0) {
    const parent = queue.shift()!
    for (const [pid, p] of table) if (p.ppid === parent) { out.push(pid); queue.push(pid) }
  }
  return out
}

/** VmRSS and VmHWM (peak) of one process, KiB; null once it is gone. */
async function memory (pid: number): Promise<{ rss: number; hwm: number } | null> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => null)
  if (status === null) return null
  return { rss: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0), hwm: Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) }
}

interface DiskUse { allocated: number; apparent: number }

/** Bytes under `dir`: allocated (what `du` counts: st_blocks × 512) and apparent (st_size), of every entry. */
async function diskUse (dir: string): Promise<DiskUse> {
  const total = { allocated: 0, apparent: 0 }
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name)
    const st = await lstat(path).catch(() => null)
    if (st === null) continue
    total.allocated += st.blocks * 512
    total.apparent += st.size
    if (entry.isDirectory()) {
      const sub = await diskUse(path)
      total.allocated += sub.allocated
      total.apparent += sub.apparent
    }
  }
  return total
}

/**
 * Allocated bytes of the store at rest: the daemon stopped (RocksDB truncates the
 * preallocated tail of a written WAL on close), then started again.
 */
async function storeAtRest (lib: Library): Promise<number> {
  await lib.stop()
  const { allocated } = await diskUse(join(lib.dataDir, 'store'))
  await lib.start()
  return allocated
}

/** Samples the daemon and its ffmpeg children every SAMPLE_MS until stopped. */
function startSampler (daemonPid: number) {
  let daemonPeakKiB = 0
  let ffmpegPeakKiB = 0
  const daemonTicks0 = { v: -1 }
  let daemonTicks = 0
  const ffmpegTicks = new Map<number, number>() // last seen cumulative ticks per ffmpeg pid
  let stopped = false
  const loop = (async () => {
    while (!stopped) {
      const table = await processTable()
      const d = table.get(daemonPid)
      if (d !== undefined) { if (daemonTicks0.v < 0) daemonTicks0.v = d.ticks; daemonTicks = d.ticks }
      const m = await memory(daemonPid)
      if (m !== null) daemonPeakKiB = Math.max(daemonPeakKiB, m.rss)
      let ffmpegNow = 0
      for (const pid of descendants(table, daemonPid)) {
        const p = table.get(pid)!
        if (p.comm !== 'ffmpeg') continue
        ffmpegTicks.set(pid, p.ticks)
        const fm = await memory(pid)
        if (fm !== null) { ffmpegNow += fm.rss; ffmpegPeakKiB = Math.max(ffmpegPeakKiB, fm.hwm) }
      }
      ffmpegPeakKiB = Math.max(ffmpegPeakKiB, ffmpegNow)
      await sleep(SAMPLE_MS)
    }
  })()
  return async () => {
    stopped = true
    await loop
    return {
      daemonPeakMiB: mib(daemonPeakKiB * 1024),
      ffmpegPeakMiB: mib(ffmpegPeakKiB * 1024),
      daemonCpuSec: round((daemonTicks - Math.max(0, daemonTicks0.v)) / TICK),
      // The last sample before ffmpeg exits: up to SAMPLE_MS of its CPU time is missed.
      ffmpegCpuSec: round([...ffmpegTicks.values()].reduce((a, b) => a + b, 0) / TICK),
      ffmpegProcesses: ffmpegTicks.size
    }
  }
}

interface Row {
  mode: typeof MODES[number]
  wallSec: number
  convertSec: number
  importSec: number
  speedX: number
  daemonPeakMiB: number
  ffmpegPeakMiB: number
  daemonCpuSec: number
  ffmpegCpuSec: number
  ffmpegProcesses: number
  segments: number
  durationSec: number
  titleMiBPerMin: number
  /** Growth of DATA_DIR/store at `ready`, daemon running: allocated / apparent. */
  storeLiveMiBPerMin: { allocated: number; apparent: number }
  /** Growth of DATA_DIR/store at rest (daemon stopped before and after), allocated. */
  storeRestMiBPerMin: number
}

type Library = Awaited<ReturnType<typeof startLibrary>>

async function ingest (lib: Library, mode: typeof MODES[number], input: string, restBefore: number): Promise<{ row: Row; restAfter: number }> {
  const pid = lib.proc?.child.pid
  if (pid === undefined) throw new Error('library daemon has no pid')
  const store = join(lib.dataDir, 'store')
  const storeBefore = await diskUse(store)
  const id = `bench-${mode}`
  const stopSampler = startSampler(pid)
  const started = performance.now()
  let importAt: number | null = null
  let ended: number | undefined
  let view: any
  let sampled: Awaited<ReturnType<ReturnType<typeof startSampler>>>
  try {
    await lib.api('POST', '/api/titles', { id, input, mode })
    // Polled here rather than with waitTitle, to see when the import phase begins.
    for (;;) {
      view = await lib.api('GET', `/api/titles/${id}`)
      if (importAt === null && view.ingest?.phase === 'import') importAt = performance.now()
      if (view.state === 'ready' || view.state === 'error') { ended = performance.now(); break }
      if (performance.now() - started > INGEST_TIMEOUT_MS) throw new Error(`title ${id} not ready after ${INGEST_TIMEOUT_MS / 1000} s (state ${String(view.state)})`)
      await sleep(POLL_MS)
    }
  } finally {
    sampled = await stopSampler()
  }
  const wallSec = (ended! - started) / 1000
  if (view.state !== 'ready') throw new Error(`title ${id} failed: ${String(view.error)}`)
  const storeAfter = await diskUse(store)
  const restAfter = await storeAtRest(lib)
  const minutes = SECONDS / 60
  const convertSec = ((importAt ?? ended!) - started) / 1000
  const row: Row = {
    mode,
    wallSec: round(wallSec),
    convertSec: round(convertSec),
    importSec: round(wallSec - convertSec),
    speedX: round(SECONDS / wallSec),
    ...sampled,
    segments: view.segments,
    durationSec: view.durationSec,
    titleMiBPerMin: mib(view.bytes / minutes),
    storeLiveMiBPerMin: {
      allocated: mib((storeAfter.allocated - storeBefore.allocated) / minutes),
      apparent: mib((storeAfter.apparent - storeBefore.apparent) / minutes)
    },
    storeRestMiBPerMin: mib((restAfter - restBefore) / minutes)
  }
  return { row, restAfter }
}

function table (rows: Row[]): string {
  return [
    '| Mode | wall s (convert + import) | × realtime | daemon peak RSS MiB | ffmpeg peak RSS MiB | CPU s daemon / ffmpeg | segments | title `bytes` MiB/min | store MiB/min at rest | store MiB/min at `ready`, allocated / apparent |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.mode} | ${r.wallSec} (${r.convertSec} + ${r.importSec}) | ${r.speedX} | ${r.daemonPeakMiB} | ${r.ffmpegPeakMiB} | ${r.daemonCpuSec} / ${r.ffmpegCpuSec} | ${r.segments} | ${r.titleMiBPerMin} | ${r.storeRestMiBPerMin} | ${r.storeLiveMiBPerMin.allocated} / ${r.storeLiveMiBPerMin.apparent} |`)
  ].join('\n')
}

/** Replaces the marked block of the "Library ingest" section, or appends the section; re-read right before writing (a shared file). */
async function writeSection (body: string): Promise<void> {
  const begin = '<!-- bench-library:begin -->'
  const end = '<!-- bench-library:end -->'
  let doc = await readFile(DOC, 'utf8')
  const block = `${begin}\n${body}\n${end}`
  if (doc.includes(begin) && doc.includes(end)) doc = doc.slice(0, doc.indexOf(begin)) + block + doc.slice(doc.indexOf(end) + end.length)
  else doc = `${doc.trimEnd()}\n\n## Library ingest\n\n${block}\n`
  await writeFile(DOC, doc)
}

const work = await mkdtemp(join(tmpdir(), 'arus-bench-library-'))
const cleanup = async () => { await cleanupAll().catch(() => {}); await rm(work, { recursive: true, force: true }) }
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => { void cleanup().finally(() => process.exit(130)) })

let failed: unknown = null
const rows: Row[] = []
let storeEmptyLive: DiskUse = { allocated: 0, apparent: 0 }
let sourceMiB = 0
try {
  const t0 = performance.now()
  const source = await makeSource(work)
  sourceMiB = mib((await lstat(source)).size)
  log(`source ${SIZE} ${SECONDS} s (${sourceMiB} MiB) made in ${round((performance.now() - t0) / 1000)} s`)
  const testnet = await createTestnet()
  // testEnv false: the daemon's own HLS_TIME (4); Argon2id kept cheap (it only guards the control admin).
  const lib = await startLibrary(undefined, { bootstrap: testnet.bootstrapString, testEnv: false, env: { ARGON2_MEM_KIB: '8', ARGON2_OPS: '1' } })
  // Before the first title the store is new, opened by this boot: 0 at rest. (Stopping here
  // would measure RocksDB's preallocated, never-written WAL, which close leaves and the next open drops.)
  storeEmptyLive = await diskUse(join(lib.dataDir, 'store'))
  let rest = 0
  for (const mode of MODES) {
    const done = await ingest(lib, mode, source, rest)
    rest = done.restAfter
    rows.push(done.row)
    log(`${mode}: ${JSON.stringify(done.row)}`)
  }
} catch (err) {
  failed = err
} finally {
  await cleanup()
}
if (failed !== null) {
  console.error(failed)
  process.exit(1)
}

const result = {
  date: new Date().toISOString(),
  machine: `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}`,
  load: loadavg().map((l) => round(l, 1)),
  source: { size: SIZE, seconds: SECONDS, mib: sourceMiB },
  rows,
  storeEmptyLiveMiB: { allocated: mib(storeEmptyLive.allocated), apparent: mib(storeEmptyLive.apparent) }
}
console.log(JSON.stringify(result, null, 2))
const body = [
  `Measured by \`scripts/bench-library.ts\` on ${result.date.slice(0, 10)}: ${result.machine}; 1-minute load average at the end ${result.load.join(', ')}.`,
  `Source: one ${SECONDS} s ${SIZE} 25 fps testsrc2 + 440 Hz sine file (${sourceMiB} MiB: H.264 x264 veryfast 2.5 Mb/s, 2 s GOP, AAC 128 kb/s, MP4), ingested as two titles one after the other; ` +
    'daemon defaults (HLS_TIME 4, INGEST_CONCURRENCY 1, transcode = libx264 veryfast CRF 21 + AAC 128 kb/s), no panel.',
  `Wall time from the POST to \`ready\` (probe + convert: until the \`import\` phase; import: segments into the encrypted feed); × realtime = ${SECONDS} s / wall; ` +
    `peak RSS sampled every ${SAMPLE_MS} ms (ffmpeg: its VmHWM); per minute = / ${SECONDS / 60} minutes of media. Store = growth of DATA_DIR/store (st_blocks × 512, or st_size for apparent): ` +
    'at rest: from the previous title (the first: from no store) to the daemon stopped after this one; at `ready`: with the daemon running, where RocksDB preallocates its write-ahead log ' +
    `(the new store before any title, daemon running: ${mib(storeEmptyLive.allocated)} MiB allocated, ${mib(storeEmptyLive.apparent)} MiB apparent).`,
  '',
  table(rows)
].join('\n')
console.log(`\n${table(rows)}`)
if (WRITE_DOC) await writeSection(body)

import { z } from 'zod'
import { createSocket } from 'node:dgram'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer as createHttpServer } from 'node:http'
import { createServer as createTcpServer } from 'node:net'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { runTool, spawnFfmpeg } from './pipeline/ffmpeg.js'
import { lastLine } from './pipeline/probe.js'

/**
 * Transcoder capabilities (spec 2, GET /api/capabilities): the input protocols and encoders
 * the channels need, each as {listed, verified, error?}. `listed` comes from
 * `ffmpeg -protocols` / `-encoders`; `verified` from a tiny real job: an encode for each
 * encoder, and for each protocol a loopback round trip on 127.0.0.1 (a file, an HTTP and an
 * HLS read served by this process, and ffmpeg-to-ffmpeg over rtmp, srt, udp and tcp).
 */

export interface Capability { listed: boolean; verified: boolean; error?: string }

const CapabilityReply = z.object({ listed: z.boolean(), verified: z.boolean(), error: z.string().optional() })

/** GET /api/capabilities. */
export const CapabilitiesReply = z.object({
  ffmpeg: z.object({ path: z.string(), version: z.string().nullable() }),
  probedAt: z.number(),
  protocols: z.record(z.string(), CapabilityReply),
  encoders: z.record(z.string(), CapabilityReply)
})

export interface Capabilities {
  ffmpeg: { path: string; version: string | null }
  probedAt: number
  protocols: Record<string, Capability>
  encoders: Record<string, Capability>
}

export const INPUT_PROTOCOLS = ['file', 'http', 'https', 'hls', 'rtmp', 'srt', 'udp', 'tcp'] as const
export const ENCODERS = ['libx264', 'aac'] as const

const JOB_MS = 15_000
const LOOPBACK_MS = 10_000
const TINY_VIDEO = ['-f', 'lavfi', '-i', 'testsrc=size=64x64:rate=10:duration=1']
const TINY_H264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', '5']

function listed (text: string, section: 'protocols' | 'encoders'): Set<string> {
  if (section === 'encoders') return new Set([...text.matchAll(/^\s*[VAS][.A-Z]{5}\s+(\S+)/gm)].map((m) => m[1]!))
  const input = text.split(/Output:/)[0]?.split(/Input:/)[1] ?? ''
  return new Set(input.split(/\s+/).filter(Boolean))
}

const freeTcpPort = () => new Promise<number>((resolve, reject) => {
  const s = createTcpServer().once('error', reject)
  s.listen(0, '127.0.0.1', () => { const a = s.address(); s.close(() => resolve(typeof a === 'object' && a ? a.port : 0)) })
})
const freeUdpPort = () => new Promise<number>((resolve, reject) => {
  const s = createSocket('udp4').once('error', reject)
  s.bind(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)) })
})

async function check (job: () => Promise<string | null>): Promise<Pick<Capability, 'verified' | 'error'>> {
  try {
    const error = await job()
    return error === null ? { verified: true } : { verified: false, error }
  } catch (err) {
    return { verified: false, error: (err as Error).message }
  }
}

/**
 * ffmpeg `receiver` listens, ffmpeg `sender` pushes one second of video into it, again
 * until the receiver has its frames (the listener may not be bound at the first try).
 */
async function loopback (ffmpeg: string, listen: string[], send: string[]): Promise<string | null> {
  const rx = spawnFfmpeg(ffmpeg, ['-hide_banner', '-nostdin', '-analyzeduration', '500000', ...listen, '-frames:v', '3', '-f', 'null', '-'])
  const deadline = Date.now() + LOOPBACK_MS
  let txError: string | undefined
  while (rx.running && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200))
    if (!rx.running) break
    const tx = await runTool(ffmpeg, ['-hide_banner', '-nostdin', '-re', ...TINY_VIDEO, ...TINY_H264, ...send], JOB_MS)
    if (tx.code !== 0) txError = lastLine(tx.stderr)
  }
  const exit = rx.running ? await rx.kill(100) : await rx.exited
  if (exit.code === 0) return null
  return txError ?? rx.tail().pop() ?? `exit ${String(exit.code)}`
}

async function serveOnce (dir: string, fn: (base: string) => Promise<string | null>): Promise<string | null> {
  const server = createHttpServer((req, res) => {
    readFile(join(dir, basename(req.url ?? '/'))).then((b) => res.end(b), () => { res.statusCode = 404; res.end() })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const a = server.address()
  try {
    return await fn(`http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`)
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
}

/** Probes everything; each job bounded, all in parallel. */
export async function probeCapabilities (ffmpeg: string, ffprobe: string): Promise<Capabilities> {
  const [protos, encs, version] = await Promise.all([
    runTool(ffmpeg, ['-hide_banner', '-protocols'], JOB_MS),
    runTool(ffmpeg, ['-hide_banner', '-encoders'], JOB_MS),
    runTool(ffmpeg, ['-version'], JOB_MS)
  ])
  const protoList = listed(protos.stdout, 'protocols')
  const encList = listed(encs.stdout, 'encoders')
  const dir = await mkdtemp(join(tmpdir(), 'arus-caps-'))
  try {
    const made = await runTool(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-y', ...TINY_VIDEO, ...TINY_H264,
      '-f', 'hls', '-hls_time', '1', '-hls_list_size', '0', '-hls_segment_filename', join(dir, 'seg%d.ts'), join(dir, 'index.m3u8')], JOB_MS)
    const sample = made.code === 0 ? null : (lastLine(made.stderr) ?? 'could not make a sample')
    const read = async (url: string) => {
      if (sample) return sample
      const r = await runTool(ffprobe, ['-v', 'error', '-show_entries', 'stream=codec_name', '-of', 'csv=p=0', '-i', url], JOB_MS)
      return r.code === 0 && r.stdout.includes('h264') ? null : (lastLine(r.stderr) ?? 'no h264 stream read')
    }
    const jobs: Record<string, () => Promise<string | null>> = {
      file: () => read(join(dir, 'seg0.ts')),
      http: () => serveOnce(dir, (base) => read(`${base}/seg0.ts`)),
      hls: () => serveOnce(dir, (base) => read(`${base}/index.m3u8`)),
      https: async () => 'not verified: needs a TLS server; listed only',
      rtmp: async () => { const p = await freeTcpPort(); return loopback(ffmpeg, ['-listen', '1', '-i', `rtmp://127.0.0.1:${p}/live/probe`], ['-f', 'flv', `rtmp://127.0.0.1:${p}/live/probe`]) },
      srt: async () => { const p = await freeUdpPort(); return loopback(ffmpeg, ['-i', `srt://127.0.0.1:${p}?mode=listener`], ['-f', 'mpegts', `srt://127.0.0.1:${p}`]) },
      udp: async () => { const p = await freeUdpPort(); return loopback(ffmpeg, ['-i', `udp://127.0.0.1:${p}`], ['-f', 'mpegts', `udp://127.0.0.1:${p}?pkt_size=1316`]) },
      tcp: async () => { const p = await freeTcpPort(); return loopback(ffmpeg, ['-i', `tcp://127.0.0.1:${p}?listen=1`], ['-f', 'mpegts', `tcp://127.0.0.1:${p}`]) }
    }
    const encodeJobs: Record<string, () => Promise<string | null>> = {
      libx264: async () => { const r = await runTool(ffmpeg, ['-hide_banner', '-loglevel', 'error', ...TINY_VIDEO, ...TINY_H264, '-f', 'null', '-'], JOB_MS); return r.code === 0 ? null : (lastLine(r.stderr) ?? 'encode failed') },
      aac: async () => { const r = await runTool(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=duration=0.5', '-c:a', 'aac', '-f', 'null', '-'], JOB_MS); return r.code === 0 ? null : (lastLine(r.stderr) ?? 'encode failed') }
    }
    const run = async (names: readonly string[], list: Set<string>, table: Record<string, () => Promise<string | null>>) => {
      const rows = await Promise.all(names.map(async (name) => {
        if (!list.has(name)) return [name, { listed: false, verified: false, error: 'not listed by ffmpeg' }] as const
        return [name, { listed: true, ...(await check(table[name]!)) }] as const
      }))
      return Object.fromEntries(rows) as Record<string, Capability>
    }
    const [protocols, encoders] = await Promise.all([run(INPUT_PROTOCOLS, protoList, jobs), run(ENCODERS, encList, encodeJobs)])
    return { ffmpeg: { path: ffmpeg, version: /ffmpeg version (\S+)/.exec(version.stdout)?.[1] ?? null }, probedAt: Date.now(), protocols, encoders }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Probes once, then answers from the cache; `refresh` probes again. Concurrent callers share one probe. */
export function createCapabilitiesCache (ffmpeg: string, ffprobe: string): (refresh: boolean) => Promise<Capabilities> {
  let cached: Promise<Capabilities> | null = null
  return (refresh) => {
    if (refresh || !cached) {
      cached = probeCapabilities(ffmpeg, ffprobe)
      cached.catch(() => { cached = null })
    }
    return cached
  }
}

import { spawn } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { registerTeardown, type TestContextLike } from '@arus/testkit'

/** Kinds of generated media: H.264/AAC in MP4 (copy), MPEG-2 video with MP2 audio (transcode). */
export type MediaKind = 'h264-aac' | 'mpeg2-mp2'

/**
 * Generates a test-pattern file with real ffmpeg (a 2 s GOP so a copy cuts 2 s segments).
 * Resolves its path. `name` may hold spaces and shell metacharacters; `size` is WxH.
 */
export async function makeMedia (dir: string, kind: MediaKind, seconds: number, name = `${kind}.${kind === 'h264-aac' ? 'mp4' : 'mpg'}`, size = '320x240'): Promise<string> {
  const out = join(dir, name)
  const codec = kind === 'h264-aac'
    ? ['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '50', '-keyint_min', '50', '-sc_threshold', '0', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '64k']
    : ['-c:v', 'mpeg2video', '-q:v', '6', '-g', '50', '-c:a', 'mp2', '-b:a', '128k', '-f', 'mpeg']
  const args = ['-hide_banner', '-loglevel', 'error', '-y',
    '-f', 'lavfi', '-i', `testsrc=size=${size}:rate=25:duration=${seconds}`,
    '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`,
    ...codec, `file:${out}`]
  await run('ffmpeg', args)
  return out
}

/** AAC audio only (an .m4a): probes fine but has no video stream. */
export async function makeAudioOnly (dir: string, seconds: number, name = 'audio-only.m4a'): Promise<string> {
  const out = join(dir, name)
  await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`, '-c:a', 'aac', '-b:a', '64k', `file:${out}`])
  return out
}

/** One MPEG-4 frame in NUT: a video stream whose container duration is exactly 0. */
export async function makeOneFrame (dir: string, name = 'one-frame.nut'): Promise<string> {
  const out = join(dir, name)
  await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=25', '-frames:v', '1', '-c:v', 'mpeg4', '-f', 'nut', `file:${out}`])
  return out
}

/**
 * An MPEG-TS whose PMT declares its video AVS2 (stream_type 0xd2) over an H.264 payload:
 * ffprobe names the codec `avs2` and a finite duration, and ffmpeg has no AVS2 decoder, so a
 * transcode fails with "Decoder (codec avs2) not found". Deterministic: the same bytes every run.
 */
export async function makeUndecodable (dir: string, seconds: number, name = 'avs2.ts'): Promise<string> {
  const out = join(dir, name)
  await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', `testsrc=size=320x240:rate=25:duration=${seconds}`,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-f', 'mpegts', `file:${out}`])
  const ts = await readFile(out)
  let patched = 0
  for (let off = 0; off + 188 <= ts.length; off += 188) {
    const pid = ((ts[off + 1]! & 0x1f) << 8) | ts[off + 2]!
    const start = (ts[off + 1]! & 0x40) !== 0
    if (pid !== MPEGTS_PMT_PID || !start) continue
    const s = off + 5 + ts[off + 4]! // after the pointer field
    const length = ((ts[s + 1]! & 0x0f) << 8) | ts[s + 2]!
    const programInfo = ((ts[s + 10]! & 0x0f) << 8) | ts[s + 11]!
    ts[s + 12 + programInfo] = 0xd2 // the first elementary stream: H.264 (0x1b) becomes AVS2
    ts.writeUInt32BE(crc32Mpeg(ts.subarray(s, s + 3 + length - 4)), s + 3 + length - 4)
    patched++
  }
  if (patched === 0) throw new Error('makeUndecodable: no PMT found')
  await writeFile(out, ts)
  return out
}

/** ffmpeg's mpegts muxer puts the PMT on this PID (its -mpegts_pmt_start_pid default). */
const MPEGTS_PMT_PID = 0x1000

/** CRC-32/MPEG-2 of a PSI section. */
function crc32Mpeg (data: Uint8Array): number {
  let crc = 0xffffffff
  for (const byte of data) {
    crc ^= byte << 24
    for (let i = 0; i < 8; i++) crc = (crc & 0x80000000) !== 0 ? (crc << 1) ^ 0x04c11db7 : crc << 1
  }
  return crc >>> 0
}

/** A local HTTP server whose every response is an endless live MPEG-TS from a real ffmpeg. */
export interface EndlessStream { url: string; close(): Promise<void> }

/**
 * Serves `ffmpeg -re -f lavfi -i testsrc … -f mpegts pipe:1` at `<url>` (chunked, no length,
 * no end): a live input with no duration. Each request gets its own ffmpeg, killed when the
 * response closes; the server and every child go at teardown.
 */
export async function startEndlessStream (t: TestContextLike | undefined): Promise<EndlessStream> {
  const children = new Set<ReturnType<typeof spawn>>()
  const server = createServer((req, res) => {
    const ff = spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-re', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=25',
      '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '25', '-f', 'mpegts', 'pipe:1'], { stdio: ['ignore', 'pipe', 'ignore'] })
    children.add(ff)
    ff.on('close', () => { children.delete(ff); res.end() })
    res.on('close', () => ff.kill('SIGKILL'))
    res.writeHead(200, { 'content-type': 'video/mp2t' })
    ff.stdout.pipe(res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const close = registerTeardown(t, async () => {
    for (const ff of children) ff.kill('SIGKILL')
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/live.ts`, close }
}

function run (cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    child.stderr.on('data', (b: Buffer) => { err += b.toString() })
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
    child.on('close', (code) => {
      clearTimeout(timer)
      if (code === 0) resolve()
      else reject(new Error(`${cmd} exited ${String(code)}: ${err.trim()}`))
    })
  })
}

import { spawn } from 'node:child_process'
import type { IngestMode } from '../titles/model.js'
import type { ProbeInfo } from './probe.js'
import { MAX_DURATION_SEC } from './probe.js'

/** The conversion actually run: stream copy (a remux) or a transcode to H.264/AAC. */
export type Conversion = 'copy' | 'transcode'

/** auto remuxes H.264 video with AAC (or no) audio, and transcodes everything else (spec 2 "Library facts"). */
export function chooseConversion (mode: IngestMode, info: ProbeInfo): Conversion {
  if (mode !== 'auto') return mode
  return info.videoCodec === 'h264' && (info.audioCodec === null || info.audioCodec === 'aac') ? 'copy' : 'transcode'
}

/**
 * ffmpeg's argument vector for one title: a finished HLS VOD rendition (`seg<N>.ts` and
 * `index.m3u8`, `#EXT-X-PLAYLIST-TYPE:VOD`, `#EXT-X-ENDLIST`) in `dir`. A transcode forces a
 * keyframe at every segment boundary; a copy cuts at the source's keyframes.
 */
export function ffmpegArgs (input: string, conversion: Conversion, hlsTime: number, dir: string): string[] {
  const codec = conversion === 'copy'
    ? ['-c', 'copy']
    : ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '21', '-pix_fmt', 'yuv420p',
        // 4:2:0 needs even sides: drop an odd last row or column (libx264 refuses 321x241).
        '-vf', 'crop=trunc(iw/2)*2:trunc(ih/2)*2',
        '-force_key_frames', `expr:gte(t,n_forced*${hlsTime})`, '-sc_threshold', '0',
        '-c:a', 'aac', '-b:a', '128k', '-ac', '2']
  return [
    '-hide_banner', '-nostdin', '-v', 'error', '-progress', 'pipe:1', '-nostats',
    '-i', input.startsWith('/') ? `file:${input}` : input,
    '-map', '0:v:0', '-map', '0:a:0?', '-t', String(MAX_DURATION_SEC),
    ...codec, '-max_muxing_queue_size', '1024',
    '-f', 'hls', '-hls_time', String(hlsTime), '-hls_list_size', '0', '-hls_playlist_type', 'vod',
    '-hls_segment_type', 'mpegts', '-hls_segment_filename', `${dir}/seg%d.ts`, `${dir}/index.m3u8`
  ]
}

/** How a conversion ended. */
export type ConvertResult = { ok: true } | { ok: false; error: string }

/**
 * Runs ffmpeg in a child process (argument vector, no shell). `onProgress` gets the fraction of
 * the duration written so far (ffmpeg's -progress out_time); `onLine` every stderr line.
 */
export function runConversion (args: string[], init: {
  durationSec: number
  prefix?: readonly string[]
  signal: AbortSignal
  onProgress(fraction: number): void
  onLine(line: string): void
}): Promise<ConvertResult> {
  return new Promise((resolve) => {
    const prefix = init.prefix ?? []
    const child = spawn(prefix[0] ?? 'ffmpeg', [...prefix.slice(1), ...(prefix.length > 0 ? ['ffmpeg'] : []), ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let last: string | undefined
    let before: string | undefined
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString()
      const lines = out.split('\n')
      out = lines.pop() ?? ''
      for (const line of lines) {
        const m = /^out_time_us=(\d+)/.exec(line)
        if (m && init.durationSec > 0) init.onProgress(Math.min(1, Number(m[1]) / 1e6 / init.durationSec))
      }
    })
    let err = ''
    child.stderr.on('data', (b: Buffer) => {
      err += b.toString()
      const lines = err.split('\n')
      err = lines.pop() ?? ''
      for (const line of lines) if (line.trim() !== '') { before = last; last = line.trim(); init.onLine(last) }
    })
    const kill = () => { if (child.exitCode === null) child.kill('SIGKILL') }
    init.signal.addEventListener('abort', kill, { once: true })
    let spawnError: string | null = null
    child.on('error', (e) => { spawnError = e.message })
    child.on('close', (code, signal) => {
      init.signal.removeEventListener('abort', kill)
      if (err.trim() !== '') { before = last; last = err.trim(); init.onLine(last) }
      if (code === 0) resolve({ ok: true })
      else if (init.signal.aborted) resolve({ ok: false, error: 'ingest stopped' })
      // ffmpeg often gives the cause one line before the last ("... not divisible by 2", then "Error initializing ...").
      else resolve({ ok: false, error: spawnError ?? `ffmpeg failed: ${last === undefined ? `exit ${String(code ?? signal)}` : before === undefined ? last : `${before} — ${last}`}` })
    })
  })
}

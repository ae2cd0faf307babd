import { join } from 'node:path'
import type { InputSpec, Transcode } from './model.js'

/**
 * ffmpeg command lines, one builder per input kind plus the shared HLS output
 * (ARCHITECTURE.md "Feeds": ffmpeg writes HLS into a scratch dir the feed writer mirrors;
 * keyframes are forced on segment boundaries when transcoding).
 */

/** What the watchdog knows about the source (ffprobe or ffmpeg's own stream lines). */
export interface SourceProfile {
  videoCodec: string | null
  audioCodec: string | null
  width: number | null
  height: number | null
}

/** Encode or copy, per stream, and the encoder settings. */
export interface OutputPlan {
  videoCopy: boolean
  audioCopy: boolean
  width?: number | undefined
  height?: number | undefined
  fps?: number | undefined
  videoBitrateKbps?: number | undefined
  audioBitrateKbps?: number | undefined
  preset: string
}

export interface HlsOutput {
  dir: string
  hlsTime: number
  hlsListSize: number
  /** First media sequence number (continues the feed after a respawn). */
  startNumber: number
  /**
   * Continue the playlist already in the dir (ffmpeg reads it when its output starts, i.e.
   * when a push listener's publisher connects): numbering goes on after the slate's last
   * segment whenever that is. For the listener that waits beside the slate.
   */
  appendList?: boolean
}

/** Default size and rate of the `test` pattern when the channel sets none. */
export const TEST_PATTERN = { width: 640, height: 360, fps: 25 } as const
const DEFAULT_PRESET = 'veryfast'

/** Codecs a browser's MSE plays from an MPEG-TS HLS feed, so copy is allowed. */
const COPY_VIDEO = new Set(['h264'])
const COPY_AUDIO = new Set(['aac'])

/**
 * Copy when the codecs allow and nothing asks for a change; h264/aac otherwise. An unknown
 * profile (a push listener before its publisher connects) copies: the watchdog switches to
 * encoding if the first stream lines show another codec.
 */
export function planOutput (input: InputSpec, transcode: Transcode | null, profile: SourceProfile | null): OutputPlan {
  const t = transcode ?? { video: 'auto', audio: 'auto' }
  const resize = t.width !== undefined || t.height !== undefined || t.fps !== undefined || t.videoBitrateKbps !== undefined
  const synthetic = input.kind === 'test'
  const videoCopy = !synthetic && (t.video === 'copy' || (t.video === 'auto' && !resize &&
    (profile === null || profile.videoCodec === null || COPY_VIDEO.has(profile.videoCodec))))
  const audioCopy = !synthetic && (t.audio === 'copy' || (t.audio === 'auto' && t.audioBitrateKbps === undefined &&
    (profile === null || profile.audioCodec === null || COPY_AUDIO.has(profile.audioCodec))))
  return {
    videoCopy,
    audioCopy,
    width: t.width ?? (synthetic ? TEST_PATTERN.width : undefined),
    height: t.height ?? (synthetic ? TEST_PATTERN.height : undefined),
    fps: t.fps ?? (synthetic ? TEST_PATTERN.fps : undefined),
    videoBitrateKbps: t.videoBitrateKbps,
    audioBitrateKbps: t.audioBitrateKbps,
    preset: t.preset ?? DEFAULT_PRESET
  }
}

/** Input arguments for `source` (the URL or path the watchdog chose), listeners bound to `bind`. */
export function inputArgs (input: InputSpec, source: string, plan: OutputPlan, bind: string, channelId: string): string[] {
  switch (input.kind) {
    case 'test': {
      const size = `${plan.width ?? TEST_PATTERN.width}x${plan.height ?? TEST_PATTERN.height}`
      return ['-re', '-f', 'lavfi', '-i', `testsrc2=size=${size}:rate=${plan.fps ?? TEST_PATTERN.fps}`,
        '-re', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000']
    }
    case 'file':
      return ['-re', '-stream_loop', '-1', '-i', source]
    case 'pull': {
      const scheme = source.slice(0, source.indexOf(':')).toLowerCase()
      if (scheme === 'http' || scheme === 'https') return ['-re', '-rw_timeout', '15000000', '-i', source]
      if (scheme === 'rtsp') return ['-rtsp_transport', 'tcp', '-i', source]
      return ['-i', source]
    }
    case 'rtmp':
      return ['-listen', '1', '-i', `rtmp://${bind}:${input.port}/${input.app}/${channelId}`]
    case 'srt': {
      const q = new URLSearchParams({ mode: 'listener' })
      if (input.latencyMs !== undefined) q.set('latency', String(input.latencyMs * 1000))
      if (input.passphrase !== undefined) q.set('passphrase', input.passphrase)
      return ['-i', `srt://${bind}:${input.port}?${q.toString()}`]
    }
    case 'udp':
      return ['-i', `udp://${bind}:${input.port}?overrun_nonfatal=1&fifo_size=50000`]
  }
}

function videoArgs (plan: OutputPlan, hlsTime: number): string[] {
  if (plan.videoCopy) return ['-c:v', 'copy']
  const args = ['-c:v', 'libx264', '-preset', plan.preset, '-pix_fmt', 'yuv420p']
  if (plan.width !== undefined || plan.height !== undefined) args.push('-vf', `scale=${plan.width ?? -2}:${plan.height ?? -2}`)
  if (plan.fps !== undefined) args.push('-r', String(plan.fps))
  if (plan.videoBitrateKbps !== undefined) {
    const k = plan.videoBitrateKbps
    args.push('-b:v', `${k}k`, '-maxrate', `${k}k`, '-bufsize', `${2 * k}k`)
  } else {
    args.push('-crf', '23')
  }
  // A keyframe on every segment boundary, and none elsewhere from scene cuts.
  args.push('-force_key_frames', `expr:gte(t,n_forced*${hlsTime})`, '-sc_threshold', '0')
  return args
}

function audioArgs (plan: OutputPlan): string[] {
  if (plan.audioCopy) return ['-c:a', 'copy']
  return ['-c:a', 'aac', '-b:a', `${plan.audioBitrateKbps ?? 128}k`, '-ar', '48000', '-ac', '2']
}

/** The HLS output: flat `seg<N>.ts` names where N is the media sequence (feed layout v1). */
export function hlsArgs (out: HlsOutput): string[] {
  const flags = ['delete_segments', 'omit_endlist', 'temp_file', 'independent_segments']
  if (out.startNumber > 0) flags.push('discont_start')
  if (out.appendList === true) flags.push('append_list')
  return [
    '-f', 'hls',
    '-hls_time', String(out.hlsTime),
    '-hls_list_size', String(out.hlsListSize),
    '-hls_delete_threshold', '2',
    '-hls_flags', flags.join('+'),
    '-start_number', String(out.startNumber),
    '-hls_segment_filename', join(out.dir, 'seg%d.ts'),
    join(out.dir, 'index.m3u8')
  ]
}

/** The full live command line for one run of a channel. */
export function liveArgs (input: InputSpec, source: string, plan: OutputPlan, out: HlsOutput, bind: string, channelId: string): string[] {
  const maps = input.kind === 'test' ? ['-map', '0:v:0', '-map', '1:a:0'] : ['-map', '0:v:0', '-map', '0:a:0?']
  return [
    '-hide_banner', '-nostats', '-loglevel', 'info', '-nostdin',
    ...inputArgs(input, source, plan, bind, channelId),
    ...maps,
    ...videoArgs(plan, out.hlsTime),
    ...audioArgs(plan),
    ...hlsArgs(out)
  ]
}

/** Loops a pre-encoded slate file into the same HLS output (copy: no encoding cost). */
export function slateArgs (file: string, out: HlsOutput): string[] {
  return ['-hide_banner', '-nostats', '-loglevel', 'info', '-nostdin', '-re', '-stream_loop', '-1', '-i', file,
    '-map', '0:v:0', '-map', '0:a:0', '-c', 'copy', ...hlsArgs(out)]
}

/** A command line safe to log: listener passphrases hidden. */
export function redactArgs (args: string[]): string[] {
  return args.map((a) => a.replace(/passphrase=[^&\s]*/g, 'passphrase=[redacted]'))
}

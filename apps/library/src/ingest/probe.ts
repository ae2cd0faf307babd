import { stat } from 'node:fs/promises'
import { lastLine, runTool } from './tools.js'

/** What a probe learned about an input. */
export interface ProbeInfo { durationSec: number; videoCodec: string; audioCodec: string | null }

/** The longest title accepted (a longer or endless input is refused at probe). */
export const MAX_DURATION_SEC = 12 * 3600
const PROBE_TIMEOUT_MS = 60_000

interface ProbeJson { format?: { duration?: string; format_name?: string }; streams?: Array<{ codec_type?: string; codec_name?: string }> }

/**
 * ffprobe of an input (spec 2 "Library": finite-duration inputs only). Every refusal is a
 * sentence an operator can act on: missing file, unreadable URL, not media, no video, no or
 * zero duration (a live stream), longer than {@link MAX_DURATION_SEC}.
 */
export async function probeInput (input: string, init: { signal?: AbortSignal; prefix?: readonly string[] } = {}): Promise<{ ok: true; info: ProbeInfo } | { ok: false; error: string }> {
  const local = input.startsWith('/')
  if (local) {
    const s = await stat(input).catch(() => null)
    if (s === null) return { ok: false, error: `input file not found: ${input}` }
    if (!s.isFile()) return { ok: false, error: `input is not a regular file: ${input}` }
    if (s.size === 0) return { ok: false, error: `input file is empty: ${input}` }
  }
  const args = ['-v', 'error', '-hide_banner', '-show_entries', 'format=duration,format_name:stream=codec_type,codec_name', '-of', 'json']
  if (!local) args.push('-rw_timeout', String((PROBE_TIMEOUT_MS - 5000) * 1000))
  args.push('-i', local ? `file:${input}` : input)
  const r = await runTool('ffprobe', args, { timeoutMs: PROBE_TIMEOUT_MS, ...init })
  if (r.timedOut) return { ok: false, error: `probe timed out after ${PROBE_TIMEOUT_MS / 1000} s: ${local ? 'the file' : 'the URL'} did not answer` }
  if (r.code !== 0) {
    const why = lastLine(r.stderr) ?? `ffprobe exited ${String(r.code)}`
    return { ok: false, error: local ? `not a readable media file (${why})` : `cannot read the URL (${why})` }
  }
  let json: ProbeJson
  try {
    json = JSON.parse(r.stdout) as ProbeJson
  } catch {
    return { ok: false, error: 'not a media file (ffprobe printed no description)' }
  }
  const video = json.streams?.find((s) => s.codec_type === 'video')
  const audio = json.streams?.find((s) => s.codec_type === 'audio')
  if (!video?.codec_name) return { ok: false, error: 'not a video: the input has no video stream' }
  const duration = Number(json.format?.duration)
  if (json.format?.duration === undefined || !Number.isFinite(duration)) {
    // ffprobe gives a still image no duration either: name it rather than call it a live stream.
    if (/^image2|_pipe$/.test(json.format?.format_name ?? '')) return { ok: false, error: 'the input is a still image, not a video' }
    return { ok: false, error: 'the input has no finite duration (a live or endless stream cannot be a title)' }
  }
  if (duration <= 0) return { ok: false, error: 'the input has zero duration' }
  if (duration > MAX_DURATION_SEC) return { ok: false, error: `the input is longer than ${MAX_DURATION_SEC / 3600} hours (${Math.round(duration)} s)` }
  return { ok: true, info: { durationSec: duration, videoCodec: video.codec_name, audioCodec: audio?.codec_name ?? null } }
}

import type { SourceProfile } from '../channels/ffmpeg-args.js'
import { runTool } from './ffmpeg.js'

/** ffprobe of a source: its first video and audio streams, or why it is not readable. */

export type ProbeResult = { ok: true; profile: SourceProfile } | { ok: false; error: string }

interface ProbeStream { codec_type?: string; codec_name?: string; width?: number; height?: number }

export async function probeSource (ffprobe: string, source: string, timeoutMs: number): Promise<ProbeResult> {
  const args = ['-v', 'error', '-hide_banner', '-show_entries', 'stream=codec_type,codec_name,width,height', '-of', 'json']
  if (/^https?:/i.test(source)) args.push('-rw_timeout', String(Math.max(1, timeoutMs - 500) * 1000))
  args.push('-i', source)
  const r = await runTool(ffprobe, args, timeoutMs)
  if (r.timedOut) return { ok: false, error: `probe timed out after ${timeoutMs} ms` }
  if (r.code !== 0) return { ok: false, error: lastLine(r.stderr) ?? `ffprobe exited ${String(r.code)}` }
  let streams: ProbeStream[]
  try {
    streams = (JSON.parse(r.stdout) as { streams?: ProbeStream[] }).streams ?? []
  } catch {
    return { ok: false, error: 'ffprobe printed no JSON' }
  }
  const video = streams.find((s) => s.codec_type === 'video')
  const audio = streams.find((s) => s.codec_type === 'audio')
  if (!video) return { ok: false, error: 'no video stream' }
  return {
    ok: true,
    profile: { videoCodec: video.codec_name ?? null, audioCodec: audio?.codec_name ?? null, width: video.width ?? null, height: video.height ?? null }
  }
}

export function lastLine (text: string): string | undefined {
  return text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).pop()
}

import { mkdir, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { BroadcasterError } from '../errors.js'
import { runTool } from './ffmpeg.js'
import { lastLine } from './probe.js'

/**
 * Offline slates (spec 2 "Broadcaster channel state": when a source keeps failing, loop an
 * offline slate matched to the detected profile). One short H.264/AAC MPEG-TS file per
 * profile, generated once with ffmpeg's lavfi sources, with a keyframe every second so it
 * cuts into segments of any hlsTime; the watchdog loops it with `-c copy`.
 */

export interface SlateProfile { width: number; height: number; fps: number; sampleRate: number }

export const DEFAULT_SLATE_PROFILE: SlateProfile = { width: 1280, height: 720, fps: 25, sampleRate: 48000 }
const SLATE_SECONDS = 10
const GENERATE_TIMEOUT_MS = 60_000

export interface SlateFactory {
  /** Path of the slate for `profile`, generating it on first use. */
  get(profile: SlateProfile): Promise<string>
}

export function createSlateFactory (init: { ffmpeg: string; dir: string }): SlateFactory {
  const pending = new Map<string, Promise<string>>()

  async function generate (p: SlateProfile, file: string): Promise<string> {
    if (await stat(file).then((s) => s.size > 0, () => false)) return file
    await mkdir(init.dir, { recursive: true })
    const tmp = `${file}.${process.pid}.tmp.ts`
    const color = `color=c=0x202020:s=${p.width}x${p.height}:r=${p.fps}:d=${SLATE_SECONDS}`
    const text = "drawtext=text='OFFLINE':fontcolor=0xdddddd:fontsize=h/8:x=(w-tw)/2:y=(h-th)/2"
    const args = (video: string) => [
      '-hide_banner', '-loglevel', 'error', '-nostdin', '-y',
      '-f', 'lavfi', '-i', video,
      '-f', 'lavfi', '-i', `anullsrc=r=${p.sampleRate}:cl=stereo`,
      '-t', String(SLATE_SECONDS),
      '-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'stillimage', '-pix_fmt', 'yuv420p',
      '-g', String(p.fps), '-keyint_min', String(p.fps), '-sc_threshold', '0',
      '-c:a', 'aac', '-b:a', '64k', '-ac', '2', '-f', 'mpegts', tmp
    ]
    // drawtext needs a font; without one the slate is a plain dark frame.
    let r = await runTool(init.ffmpeg, args(`${color},${text}`), GENERATE_TIMEOUT_MS)
    if (r.code !== 0) r = await runTool(init.ffmpeg, args(color), GENERATE_TIMEOUT_MS)
    if (r.code !== 0) {
      await rm(tmp, { force: true })
      throw BroadcasterError.ffmpeg(`slate generation failed: ${lastLine(r.stderr) ?? `exit ${String(r.code)}`}`)
    }
    await rename(tmp, file)
    return file
  }

  return {
    get (profile) {
      const p = {
        width: profile.width - (profile.width % 2),
        height: profile.height - (profile.height % 2),
        fps: Math.min(60, Math.max(1, Math.round(profile.fps))),
        sampleRate: profile.sampleRate
      }
      const key = `slate-${p.width}x${p.height}-${p.fps}fps-${p.sampleRate}`
      let job = pending.get(key)
      if (!job) {
        job = generate(p, join(init.dir, `${key}.ts`))
        job.catch(() => pending.delete(key))
        pending.set(key, job)
      }
      return job
    }
  }
}

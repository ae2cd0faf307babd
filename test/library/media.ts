import { spawn } from 'node:child_process'
import { join } from 'node:path'

/** Kinds of generated media: H.264/AAC in MP4 (copy), MPEG-2 video with MP2 audio (transcode). */
export type MediaKind = 'h264-aac' | 'mpeg2-mp2'

/**
 * Generates a test-pattern file with real ffmpeg (a 2 s GOP so a copy cuts 2 s segments).
 * Resolves its path. `name` may hold spaces and shell metacharacters.
 */
export async function makeMedia (dir: string, kind: MediaKind, seconds: number, name = `${kind}.${kind === 'h264-aac' ? 'mp4' : 'mpg'}`): Promise<string> {
  const out = join(dir, name)
  const codec = kind === 'h264-aac'
    ? ['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '50', '-keyint_min', '50', '-sc_threshold', '0', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '64k']
    : ['-c:v', 'mpeg2video', '-q:v', '6', '-g', '50', '-c:a', 'mp2', '-b:a', '128k', '-f', 'mpeg']
  const args = ['-hide_banner', '-loglevel', 'error', '-y',
    '-f', 'lavfi', '-i', `testsrc=size=320x240:rate=25:duration=${seconds}`,
    '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`,
    ...codec, `file:${out}`]
  await run('ffmpeg', args)
  return out
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

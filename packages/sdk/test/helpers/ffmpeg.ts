import { spawn } from 'node:child_process'

export interface FfmpegResult { code: number | null; stderr: string; ms: number }

/**
 * Decodes `seconds` of `url` with ffmpeg into the null muxer (asynchronously: the engine serving
 * the URL runs in this process). Killed after `timeoutMs`.
 */
export function decode (url: string, seconds: number, timeoutMs = 60_000, extra: string[] = []): Promise<FfmpegResult> {
  const started = Date.now()
  return new Promise((resolve) => {
    const child = spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', ...extra, '-i', url, '-t', String(seconds), '-f', 'null', '-'], { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (s: string) => { stderr += s })
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stderr, ms: Date.now() - started }) })
  })
}

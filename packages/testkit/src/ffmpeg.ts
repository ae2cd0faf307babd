import { spawnProcess } from './process.js'

/** Options for {@link decodeWithFfmpeg}. */
export interface DecodeInit {
  /** The run is killed (SIGKILL) after this long; `code` is then `null`. Default 60000 ms. */
  timeoutMs?: number
  /** Extra ffmpeg options placed before `-i` (e.g. `['-ss', '5']`, `['-live_start_index', '0']`). */
  inputArgs?: string[]
  /** The ffmpeg binary. Default `ffmpeg`. */
  ffmpeg?: string
}

/** How a decode went: ffmpeg's exit code, its error output (`-loglevel error`) and the wall time. */
export interface DecodeResult {
  code: number | null
  stderr: string
  ms: number
}

/**
 * Decodes `seconds` of `url` (an HLS playlist, usually) with ffmpeg into the null muxer, as a
 * player would, without blocking this process (the server of `url` may run in it). A clean
 * decode is `code === 0` with an empty `stderr`.
 */
export async function decodeWithFfmpeg (url: string, seconds: number, init: DecodeInit = {}): Promise<DecodeResult> {
  const started = Date.now()
  const timeoutMs = init.timeoutMs ?? 60_000
  const args = ['-hide_banner', '-loglevel', 'error', ...(init.inputArgs ?? []), '-i', url, '-t', String(seconds), '-f', 'null', '-']
  const proc = spawnProcess(undefined, init.ffmpeg ?? 'ffmpeg', args, { timeoutMs })
  const { code } = await proc.waitForExit(timeoutMs + 5000)
  return { code, stderr: proc.stderrText(), ms: Date.now() - started }
}

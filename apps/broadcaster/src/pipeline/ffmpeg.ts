import { spawn } from 'node:child_process'
import type { SourceProfile } from '../channels/ffmpeg-args.js'

/** One ffmpeg (or ffprobe) process: stderr split into lines, stream profiles parsed from them. */

export interface ExitInfo { code: number | null; signal: NodeJS.Signals | null }

export interface OutputProfile { width: number; height: number; fps: number | null; sampleRate: number | null }

export interface FfmpegRun {
  readonly pid: number | undefined
  readonly startedAt: number
  /** Resolves once the process is gone (never rejects; a spawn failure is exit code null). */
  readonly exited: Promise<ExitInfo>
  readonly running: boolean
  /** The input's profile once ffmpeg printed it. */
  inputProfile(): SourceProfile | null
  /** The output video's size and rate once ffmpeg printed it. */
  outputProfile(): OutputProfile | null
  /** The last non-noise stderr lines (at most 20). */
  tail(): string[]
  /** SIGTERM, then SIGKILL after `graceMs` (0: SIGKILL at once, so no trailer is written); resolves at exit. */
  kill(graceMs?: number): Promise<ExitInfo>
}

export interface SpawnFfmpegInit {
  onLine?: (line: string) => void
  onInputProfile?: (profile: SourceProfile) => void
  /** Command the ffmpeg command line is prefixed with (see @arus/service childPrefix). */
  prefix?: readonly string[]
}

/** hls muxer chatter, one pair of lines per segment: not worth a place in the log ring. */
const NOISE = /Opening '.*' for writing|^\s*$/

const STREAM = /^\s*Stream #\d+:\d+[^:]*: (Video|Audio): ([A-Za-z0-9_]+)(.*)$/

/** Parses ffmpeg's `Input #`/`Output #` stream lines into profiles. */
export function createProfileParser () {
  let section: 'input' | 'output' | null = null
  const input: SourceProfile = { videoCodec: null, audioCodec: null, width: null, height: null }
  let inputSeen = false
  let output: OutputProfile | null = null
  let outputAudioRate: number | null = null
  return {
    feed (line: string): 'input' | 'output' | null {
      if (/^Input #\d+/.test(line)) { section = 'input'; return null }
      if (/^Output #\d+/.test(line)) { section = 'output'; return null }
      const m = STREAM.exec(line)
      if (!m || section === null) return null
      const [, type, codec, rest = ''] = m
      const size = /, (\d{2,5})x(\d{2,5})/.exec(rest)
      const fps = /, ([\d.]+) (?:fps|tbr)/.exec(rest)
      const rate = /, (\d+) Hz/.exec(rest)
      if (section === 'input') {
        if (type === 'Video' && input.videoCodec === null) {
          input.videoCodec = codec ?? null
          input.width = size ? Number(size[1]) : null
          input.height = size ? Number(size[2]) : null
        } else if (type === 'Audio' && input.audioCodec === null) {
          input.audioCodec = codec ?? null
        }
        inputSeen = true
        return 'input'
      }
      if (type === 'Video' && size && output === null) output = { width: Number(size[1]), height: Number(size[2]), fps: fps ? Math.round(Number(fps[1])) : null, sampleRate: outputAudioRate }
      if (type === 'Audio' && rate) {
        outputAudioRate = Number(rate[1])
        if (output) output.sampleRate = outputAudioRate
      }
      return 'output'
    },
    input: () => (inputSeen ? { ...input } : null),
    output: () => (output ? { ...output } : null)
  }
}

export function spawnFfmpeg (bin: string, args: string[], init: SpawnFfmpegInit = {}): FfmpegRun {
  const prefix = init.prefix ?? []
  const child = prefix.length > 0
    ? spawn(prefix[0]!, [...prefix.slice(1), bin, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
    : spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] })
  const startedAt = Date.now()
  const parser = createProfileParser()
  const tail: string[] = []
  let running = true
  let buffered = ''
  let announced = false

  const onLine = (line: string) => {
    if (NOISE.test(line)) return
    tail.push(line)
    if (tail.length > 20) tail.shift()
    init.onLine?.(line)
    if (parser.feed(line) === 'output' && !announced) {
      // The input's streams are all printed before the first Output line.
      announced = true
      const p = parser.input()
      if (p) init.onInputProfile?.(p)
    }
  }
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk
    const parts = buffered.split(/\r\n|\r|\n/)
    buffered = parts.pop() ?? ''
    for (const line of parts) onLine(line)
    if (buffered.length > 8192) { onLine(buffered); buffered = '' }
  })
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('error', (err) => {
      onLine(`spawn ${bin} failed: ${err.message}`)
      running = false
      resolve({ code: null, signal: null })
    })
    child.once('close', (code, signal) => {
      if (buffered) onLine(buffered)
      running = false
      resolve({ code, signal })
    })
  })

  return {
    pid: child.pid,
    startedAt,
    exited,
    get running () { return running },
    inputProfile: () => parser.input(),
    outputProfile: () => parser.output(),
    tail: () => [...tail],
    async kill (graceMs = 3000) {
      if (!running) return exited
      child.kill(graceMs <= 0 ? 'SIGKILL' : 'SIGTERM')
      const timer = setTimeout(() => { if (running) child.kill('SIGKILL') }, graceMs)
      try {
        return await exited
      } finally {
        clearTimeout(timer)
      }
    }
  }
}

/** Runs a short ffmpeg/ffprobe job to completion, bounded by `timeoutMs`; resolves with stdout/stderr and the exit code. */
export function runTool (bin: string, args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let timedOut = false
    const cap = (s: string, add: string) => (s.length > 1_000_000 ? s : s + add)
    child.stdout!.setEncoding('utf8').on('data', (d: string) => { stdout = cap(stdout, d) })
    child.stderr!.setEncoding('utf8').on('data', (d: string) => { stderr = cap(stderr, d) })
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL') }, timeoutMs)
    child.once('error', (err) => { clearTimeout(timer); resolve({ code: null, stdout, stderr: stderr + err.message, timedOut }) })
    child.once('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr, timedOut }) })
  })
}

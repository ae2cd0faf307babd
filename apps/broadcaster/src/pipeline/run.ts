import { mkdir, rm } from 'node:fs/promises'
import type { FeedMirror, FeedWriter } from '@arus/feed'
import type { SourceProfile } from '../channels/ffmpeg-args.js'
import { spawnFfmpeg, type ExitInfo, type FfmpegRun, type OutputProfile } from './ffmpeg.js'

/**
 * One ffmpeg run of a channel: a clean scratch dir, ffmpeg writing HLS into it, the feed
 * writer mirroring it (segments before the playlist that lists them), and a stall guard
 * that kills a run which stops producing segments. A push listener waiting beside the
 * offline slate shares the slate's dir unmirrored and takes the slate's mirror over when its
 * publisher connects (release/adopt), so the feed never copies a segment twice.
 */

export interface RunInit {
  ffmpeg: string
  /** Prefix of the command line (childPrefix). */
  prefix: readonly string[]
  args: string[]
  writer: FeedWriter
  dir: string
  /** No new segment for this long: kill the run. */
  stallMs: number
  /** A push listener may wait for its publisher indefinitely before the first segment. */
  idleUntilFirstSegment: boolean
  /** Keep what the dir holds (a listener started beside the slate, sharing its dir). Default: start clean. */
  keepDir?: boolean
  /** Start without a feed mirror: another run's mirror follows the dir until adopt() or swapWriter(). */
  unmirrored?: boolean
  mirrorPollMs?: number
  onLine(line: string): void
  onInputProfile(profile: SourceProfile): void
  /** A segment reached the feed (its media sequence number, when the name carries one). */
  onSegment(sequence: number | null): void
}

export interface RunResult {
  exit: ExitInfo
  /** At least one segment reached the feed during this run. */
  produced: boolean
  /** Killed by the stall guard. */
  stalled: boolean
  /** Killed on purpose (stop, replan, slate drop), not a source failure. */
  killed: boolean
}

export interface Run {
  readonly ffmpeg: FfmpegRun
  readonly produced: boolean
  readonly done: Promise<RunResult>
  outputProfile(): OutputProfile | null
  /** Ends the run on purpose; resolves once ffmpeg exited and the mirror stopped. */
  stop(): Promise<RunResult>
  /** Mirror into another writer from now on (rotate); ffmpeg keeps running. */
  swapWriter(writer: FeedWriter): Promise<void>
  /**
   * Ends the run at once (SIGKILL: no trailer, so no last partial segment) and hands its
   * mirror over, still following the dir; its segments reach this run's onSegment until adopted.
   */
  release(): Promise<RunMirror | null>
  /** Mirrors through `mirror` (released by a run in the same dir) from now on; a run that has its own mirror stops it. */
  adopt(mirror: RunMirror): Promise<void>
}

/** A feed mirror of a scratch dir whose events go to the run that holds it. */
export interface RunMirror {
  stop(): Promise<void>
  route(sink: MirrorSink): void
}

interface MirrorSink { segment(arg: unknown): void; error(err: unknown): void }

function openMirror (writer: FeedWriter, dir: string, pollMs: number, sink: MirrorSink): RunMirror {
  let target = sink
  const m: FeedMirror = writer.mirror(dir, { pollMs })
  m.on('segment', (arg: unknown) => target.segment(arg))
  m.on('error', (err: unknown) => target.error(err))
  return { stop: () => m.stop().catch(() => {}), route (next) { target = next } }
}

const SEQ = /seg(\d+)\.ts$/

function sequenceOf (arg: unknown): number | null {
  const name = typeof arg === 'string' ? arg : (arg as { name?: unknown; path?: unknown } | null)?.name ?? (arg as { path?: unknown } | null)?.path
  const m = typeof name === 'string' ? SEQ.exec(name) : null
  return m ? Number(m[1]) : null
}

export async function startRun (init: RunInit): Promise<Run> {
  if (!init.keepDir) await rm(init.dir, { recursive: true, force: true })
  await mkdir(init.dir, { recursive: true })
  let produced = false
  let stalled = false
  let killed = false
  let released = false
  let lastProgress = Date.now()
  const pollMs = init.mirrorPollMs ?? 200
  const sink: MirrorSink = {
    segment (arg) {
      produced = true
      lastProgress = Date.now()
      init.onSegment(sequenceOf(arg))
    },
    error: (err) => init.onLine(`feed mirror: ${(err as Error)?.message ?? String(err)}`)
  }
  let mirror: RunMirror | null = init.unmirrored ? null : openMirror(init.writer, init.dir, pollMs, sink)
  const ffmpeg = spawnFfmpeg(init.ffmpeg, init.args, { onLine: init.onLine, onInputProfile: init.onInputProfile, prefix: init.prefix })

  const guard = setInterval(() => {
    if (!ffmpeg.running || (init.idleUntilFirstSegment && !produced)) return
    if (Date.now() - lastProgress > init.stallMs) {
      stalled = true
      init.onLine(`watchdog: no new segment for ${Math.round(init.stallMs / 1000)} s, restarting ffmpeg`)
      void ffmpeg.kill()
    }
  }, Math.min(1000, init.stallMs))
  guard.unref()

  const done = ffmpeg.exited.then(async (exit) => {
    clearInterval(guard)
    if (!released) await mirror?.stop()
    return { exit, produced, stalled, killed }
  })

  return {
    ffmpeg,
    get produced () { return produced },
    done,
    outputProfile: () => ffmpeg.outputProfile(),
    async stop () {
      killed = true
      await ffmpeg.kill()
      return done
    },
    async swapWriter (writer) {
      await mirror?.stop()
      mirror = openMirror(writer, init.dir, pollMs, sink)
    },
    async release () {
      killed = released = true
      await ffmpeg.kill(0)
      await done
      const handed = mirror
      mirror = null
      return handed
    },
    async adopt (next) {
      if (mirror) { await next.stop(); return }
      mirror = next
      next.route(sink)
    }
  }
}

import type { FeedWriter } from '@arus/feed'
import { liveArgs, planOutput, type HlsOutput, type SourceProfile } from '../channels/ffmpeg-args.js'
import { sourcesOf } from '../channels/input.js'
import type { Channel } from '../channels/model.js'
import { backoffFor } from './backoff.js'
import { startRun, type Run, type RunResult } from './run.js'
import type { WatchdogSettings } from './watchdog-types.js'

/**
 * The push listener that waits beside the offline slate (docs/broadcaster.md "Push channels
 * without a publisher"). It shares the slate's scratch dir, without a mirror of its own and with ffmpeg's
 * append_list: when a publisher connects, ffmpeg reads the slate's playlist as its output
 * starts and numbers on after the slate's last segment. The watchdog then kills the slate
 * and hands the slate's mirror to this run (Run.release/adopt), so the publisher's
 * connection is kept and the feed never goes back in sequence. A listener that exits before
 * a publisher connects (its port still taken, a failed handshake) starts again with backoff.
 */

export interface ListenerBesideInit {
  settings: WatchdogSettings
  channel: Channel
  dir: string
  stallMs: number
  /** Profiles seen per source (shared with the watchdog: the first publisher's tells how to plan). */
  profiles: Map<string, SourceProfile>
  log(line: string): void
  /** The HLS output (append_list, numbering from the feed's next sequence). */
  hls(): HlsOutput
  writer(): FeedWriter
  /** The slate is on air and the watchdog is not stopping. */
  active(): boolean
  onRespawn(): void
  /** A publisher connected (its stream lines): true when the watchdog takes the run over. */
  onConnect(run: Run): boolean
  onSegment(sequence: number | null): void
  /** A run the watchdog took over ended. */
  onExitAfterHandOver(run: Run, result: RunResult): void
}

export interface ListenerBeside {
  /** Starts the listener unless it runs; a failure to start is logged and retried with backoff. */
  start(): Promise<void>
  stop(): Promise<void>
}

export function createListenerBeside (init: ListenerBesideInit): ListenerBeside {
  const s = init.settings
  const input = init.channel.input
  const source = sourcesOf(input)[0]!
  let waiting: Run | null = null
  let timer: NodeJS.Timeout | null = null
  let failures = 0

  async function spawn (): Promise<void> {
    if (!init.active() || waiting || timer) return
    const t = init.channel.transcode
    const plan = planOutput(input, t, init.profiles.get(source) ?? null)
    let replan = false
    let handedOver = false
    init.log('watchdog: listening for the publisher beside the slate')
    const current: Run = await startRun({
      ffmpeg: s.ffmpeg,
      prefix: s.ffmpegPrefix,
      args: liveArgs(input, source, plan, init.hls(), s.ingestBind, init.channel.id),
      writer: init.writer(),
      dir: init.dir,
      stallMs: init.stallMs,
      idleUntilFirstSegment: true,
      keepDir: true,
      unmirrored: true,
      onLine: init.log,
      onInputProfile: (p) => {
        init.profiles.set(source, p)
        if (waiting !== current) return
        const after = planOutput(input, t, p)
        if ((plan.videoCopy && !after.videoCopy) || (plan.audioCopy && !after.audioCopy)) {
          // As spawnReal does: a codec the feed cannot carry as-is. The publisher has to reconnect.
          replan = true
          init.log(`watchdog: source is ${p.videoCodec ?? 'no video'}/${p.audioCodec ?? 'no audio'}, switching to h264/aac`)
          void current.stop()
          return
        }
        if (!init.onConnect(current)) return
        waiting = null
        handedOver = true
        failures = 0
      },
      onSegment: init.onSegment
    })
    if (!init.active() || waiting) { await current.stop(); return }
    waiting = current
    void current.done.then((r) => {
      if (handedOver) { init.onExitAfterHandOver(current, r); return }
      if (waiting !== current) return // stopped
      waiting = null
      if (!init.active()) return
      if (replan) { again(0); return }
      failures++
      init.onRespawn()
      const how = r.exit.signal ? `signal ${r.exit.signal}` : `code ${String(r.exit.code)}`
      const ms = backoffFor(s, failures)
      init.log(`watchdog: the listener beside the slate exited (${how}); again in ${ms} ms`)
      again(ms)
    })
  }

  function start (): Promise<void> {
    return spawn().catch((err: Error) => { init.log(`watchdog: listener: ${err.message}`); again(s.backoffMaxMs) })
  }

  function again (ms: number): void {
    timer = setTimeout(() => { timer = null; void start() }, ms)
  }

  return {
    start,
    async stop () {
      if (timer) clearTimeout(timer)
      timer = null
      const ending = waiting
      waiting = null
      await ending?.stop()
    }
  }
}

/**
 * Whether a push channel's publisher is around: `left()` when its run ends, `back()` at its
 * first segment. `graceMs` after it left (publisherGraceMs) `onGone` fires, unless a
 * publisher is connecting right then (`connecting()`), in which case its first segment or
 * run exit decides and the check runs again later.
 */
export interface PublisherPresence {
  left(): void
  back(): void
  /** The publisher left and the grace is over. */
  gone(): boolean
  /** The publisher left (within the grace or past it). */
  absent(): boolean
  stop(): void
}

export function createPublisherPresence (init: { graceMs: number; recheckMs: number; connecting(): boolean; onGone(): void }): PublisherPresence {
  let absent = false
  let timer: NodeJS.Timeout | null = null
  const clear = () => { if (timer) clearTimeout(timer); timer = null }
  const arm = (ms: number) => {
    clear()
    timer = setTimeout(() => {
      timer = null
      if (!absent) return
      if (init.connecting()) { arm(init.recheckMs); return }
      init.onGone()
    }, ms)
  }
  return {
    left () { absent = true; arm(init.graceMs) },
    back () { absent = false; clear() },
    gone: () => absent && timer === null,
    absent: () => absent,
    stop: clear
  }
}

import { join } from 'node:path'
import type { FeedWriter } from '@arus/feed'
import { liveArgs, planOutput, slateArgs, type SourceProfile } from '../channels/ffmpeg-args.js'
import { isPush, type Channel } from '../channels/model.js'
import { sourcesOf } from '../channels/input.js'
import { safeSource } from '../util.js'
import { probeSource } from './probe.js'
import { backoffFor, publisherGraceMs } from './backoff.js'
import { createListenerBeside, createPublisherPresence } from './push-slate.js'
import { startRun, type Run, type RunResult } from './run.js'
import { DEFAULT_SLATE_PROFILE, type SlateProfile } from './slate.js'
import { createSourceCursor } from './sources.js'
import type { ChannelState, Watchdog, WatchdogComponents, WatchdogStatus } from './watchdog-types.js'

/**
 * The per-channel watchdog (spec 2 "Broadcaster channel state"): respawns ffmpeg with
 * backoff (states starting, up, waiting-input, backoff); counts consecutive failures per
 * source and moves to the next fallback after SLATE_AFTER; when every source is exhausted
 * it loops an offline slate matched to the detected profile (state stays 'up',
 * slate.slated true) and probes the real sources every SLATE_RETRY_MS, dropping the slate
 * as soon as one is healthy. A push channel is off the air until its publisher feeds; once
 * the publisher has been gone for the same grace (publisherGraceMs) it goes off the air
 * again and loops the slate while its listener waits beside it (push-slate.ts).
 */

export type { ChannelState, Watchdog, WatchdogComponents, WatchdogEvents, WatchdogSettings, WatchdogStatus } from './watchdog-types.js'

const PROBE_TIMEOUT_MS = 10_000

export function createWatchdog (c: WatchdogComponents, channel: Channel, init: { writer: FeedWriter; scratchDir: string; nextSequence: number }): Watchdog {
  const s = c.settings
  const sources = createSourceCursor(sourcesOf(channel.input), s.slateAfter)
  const push = isPush(channel.input)
  const stallMs = Math.max(s.stallMs, 3000 * channel.hlsTime)
  const profiles = new Map<string, SourceProfile>()
  let writer = init.writer
  let nextSequence = init.nextSequence
  let state: ChannelState = 'stopped'
  let run: Run | null = null
  let runIsSlate = false
  let stopping = false
  let timer: NodeJS.Timeout | null = null
  let retryTimer: NodeJS.Timeout | null = null
  let restarts = 0
  let attempted = false
  let consecutive = 0
  let backoffMs: number | null = null
  let nextAttemptAt: number | null = null
  let lastExit: WatchdogStatus['lastExit'] = null
  let slate: WatchdogStatus['slate'] = { slated: false, file: null, since: null, failures: 0 }
  let slateProfile: SlateProfile | null = null
  let retrying = false
  const log = (line: string) => c.ring.push(line)
  const out = () => ({ dir: init.scratchDir, hlsTime: channel.hlsTime, hlsListSize: channel.hlsListSize, startNumber: nextSequence })
  const onSegment = (seq: number | null) => {
    if (seq !== null && seq >= nextSequence) nextSequence = seq + 1
    c.events.segment?.(seq)
  }
  // Push inputs: is the publisher around, and the listener that waits for it beside the slate.
  const grace = publisherGraceMs(s)
  const presence = createPublisherPresence({
    graceMs: grace,
    recheckMs: Math.max(grace, s.backoffMinMs),
    connecting: () => run?.ffmpeg.running === true && !runIsSlate && run.ffmpeg.inputProfile() !== null,
    onGone: publisherGone
  })
  const beside = createListenerBeside({
    settings: s, channel, dir: init.scratchDir, stallMs, log,
    hls: () => ({ ...out(), appendList: true }),
    writer: () => writer,
    profiles,
    active: () => !stopping && slate.slated,
    onRespawn: () => { restarts++; c.events.respawn() },
    onConnect: (next) => handOver(next),
    onSegment: (seq) => { onSegment(seq); fed(sources.current()) },
    onExitAfterHandOver: (ended, r) => onExit(ended, sources.current(), r, false)
  })

  function schedule (fn: () => void, ms: number): void {
    if (timer) clearTimeout(timer)
    nextAttemptAt = Date.now() + ms
    timer = setTimeout(() => { timer = null; nextAttemptAt = null; if (!stopping) fn() }, ms)
  }

  async function spawnReal (): Promise<void> {
    // A push channel's listener waits beside the slate instead.
    if (stopping || (push && slate.slated)) return
    if (attempted) { restarts++; c.events.respawn() }
    attempted = true
    const source = sources.current()
    state = push ? 'waiting-input' : 'starting'
    const t = channel.transcode
    const wantsProbe = (channel.input.kind === 'file' || channel.input.kind === 'pull') &&
      (t === null || t.video === 'auto' || t.audio === 'auto') && !profiles.has(source)
    if (wantsProbe) {
      const probed = await probeSource(s.ffprobe, source, PROBE_TIMEOUT_MS)
      if (stopping) return
      if (!probed.ok) {
        log(`probe of ${safeSource(source)} failed: ${probed.error}`)
        onFailure(source, { code: null, signal: null }, `probe failed: ${probed.error}`)
        return
      }
      profiles.set(source, probed.profile)
    }
    const plan = planOutput(channel.input, t, profiles.get(source) ?? null)
    const args = liveArgs(channel.input, source, plan, out(), s.ingestBind, channel.id)
    log(`watchdog: starting ffmpeg (${plan.videoCopy ? 'video copy' : 'video h264'}, ${plan.audioCopy ? 'audio copy' : 'audio aac'}) from ${safeSource(source)} at sequence ${nextSequence}`)
    let replan = false
    const current = await startRun({
      ffmpeg: s.ffmpeg, prefix: s.ffmpegPrefix, args, writer, dir: init.scratchDir, stallMs, idleUntilFirstSegment: push,
      onLine: log,
      onInputProfile: (p) => {
        profiles.set(source, p)
        const after = planOutput(channel.input, t, p)
        // A codec the feed cannot carry as-is (seen only once the publisher connected): encode instead.
        if ((plan.videoCopy && !after.videoCopy) || (plan.audioCopy && !after.audioCopy)) {
          replan = true
          log(`watchdog: source is ${p.videoCodec ?? 'no video'}/${p.audioCodec ?? 'no audio'}, switching to h264/aac`)
          void current.stop()
        }
      },
      onSegment: (seq) => {
        onSegment(seq)
        fed(source)
      }
    })
    if (stopping || (push && slate.slated)) { await current.stop(); return }
    run = current
    runIsSlate = false
    void current.done.then((r) => onExit(current, source, r, replan))
  }

  /** The source fed a segment: on air (again). */
  function fed (source: string): void {
    if (state === 'up') return
    state = 'up'
    consecutive = 0
    backoffMs = null
    sources.succeeded()
    c.events.sourceUp(source)
    if (!push) return
    presence.back()
    c.events.onAir?.(true)
  }

  /** The publisher has been gone for the grace: off the air, and the slate on. */
  function publisherGone (): void {
    if (stopping || slate.slated) return
    log(`watchdog: no publisher for ${grace} ms; the channel is off the air`)
    c.events.sourceDown(sources.current(), `no publisher for ${grace} ms`)
    c.events.onAir?.(false)
    if (s.slateEnabled) engagePushSlate().catch((err: Error) => log(`watchdog: slate: ${err.message}`))
  }

  /** Loops the slate into the scratch dir with the listener waiting beside it. */
  async function engagePushSlate (): Promise<void> {
    let file: string
    try {
      file = await c.slates.get(currentSlateProfile())
    } catch (err) {
      log(`watchdog: ${(err as Error).message}; waiting for the publisher without a slate`)
      if (!run && !timer && !stopping) backoff(s.backoffMaxMs)
      return
    }
    if (stopping || !presence.absent() || slate.slated) return
    if (timer) clearTimeout(timer)
    timer = null
    nextAttemptAt = null
    // Slated first: a listener spawn still in flight sees it and stands down.
    slate = { slated: true, file, since: Date.now(), failures: sources.totalFailures() }
    state = 'up'
    backoffMs = null
    c.events.slateOn(slate.failures, file)
    log('watchdog: looping the offline slate; the listener waits beside it')
    const idle = run
    run = null
    await idle?.stop() // frees the port for the listener beside the slate
    await spawnSlate().catch((err: Error) => {
      log(`watchdog: slate: ${err.message}`)
      schedule(() => { spawnSlate().catch((e: Error) => log(`watchdog: slate: ${e.message}`)) }, s.backoffMaxMs)
    })
    await beside.start()
  }

  /** The publisher connected to the listener beside the slate: it takes the dir and the slate's mirror over. */
  function handOver (next: Run): boolean {
    if (stopping || !slate.slated) return false
    const slateRun = runIsSlate ? run : null
    if (timer) clearTimeout(timer) // a pending slate restart
    timer = null
    nextAttemptAt = null
    run = next
    runIsSlate = false
    slate = { slated: false, file: slate.file, since: null, failures: 0 }
    state = 'waiting-input'
    log('watchdog: the publisher is back; dropping the slate')
    c.events.slateOff(sources.current())
    void (async () => {
      const mirror = slateRun ? await slateRun.release() : null
      if (stopping || run !== next) { await mirror?.stop(); return }
      if (mirror) await next.adopt(mirror)
      else await next.swapWriter(writer)
    })().catch((err: Error) => log(`watchdog: hand-over: ${err.message}`))
    return true
  }

  function onExit (ended: Run, source: string, r: RunResult, replan: boolean): void {
    if (run !== ended || stopping) return
    run = null
    lastExit = { code: r.exit.code, signal: r.exit.signal, at: Date.now() }
    const how = r.exit.signal ? `signal ${r.exit.signal}` : `code ${String(r.exit.code)}`
    log(`watchdog: ffmpeg exited (${how})${r.stalled ? ' after stalling' : ''}`)
    if (replan) { respawn(); return }
    if (r.produced) {
      // A run that fed segments ended: the publisher left, or the source hiccuped. Try again soon.
      consecutive = 0
      slateProfile = toSlateProfile(ended) ?? slateProfile
      if (push) { presence.left(); respawn(); return }
      backoff(s.backoffMinMs)
      return
    }
    onFailure(source, r.exit, r.stalled ? 'stalled before the first segment' : `${how}: ${tailOf(ended)}`)
  }

  function onFailure (source: string, exit: { code: number | null; signal: string | null }, detail: string): void {
    if (stopping) return
    consecutive++
    lastExit = { code: exit.code, signal: exit.signal, at: Date.now() }
    c.events.sourceDown(source, detail)
    const moved = sources.failed()
    if (push && presence.gone() && s.slateEnabled) {
      // Past the grace (a handed-over publisher failed before its first segment): back to the slate.
      engagePushSlate().catch((err: Error) => { log(`watchdog: slate: ${err.message}`); backoff(s.backoffMaxMs) })
      return
    }
    if (moved === 'exhausted' && s.slateEnabled && !push) {
      engageSlate().catch((err: Error) => { log(`watchdog: slate: ${err.message}`); backoff(s.backoffMaxMs) })
      return
    }
    if (moved === 'next') {
      // A fallback gets its own attempts from the shortest backoff.
      log(`watchdog: ${s.slateAfter} consecutive failures, trying ${safeSource(sources.current())}`)
      consecutive = 0
      backoff(s.backoffMinMs)
      return
    }
    backoff(backoffFor(s, consecutive))
  }

  function backoff (ms: number): void {
    state = 'backoff'
    backoffMs = ms
    schedule(respawn, ms)
  }

  /** spawnReal, with an unexpected failure (scratch dir, spawn) counted as a failed run. */
  function respawn (): void {
    const source = sources.current()
    spawnReal().catch((err: Error) => {
      log(`watchdog: ${err.message}`)
      onFailure(source, { code: null, signal: null }, err.message)
    })
  }

  function currentSlateProfile (): SlateProfile {
    const t = channel.transcode
    const src = profiles.get(sources.current())
    return slateProfile ?? {
      width: t?.width ?? src?.width ?? DEFAULT_SLATE_PROFILE.width,
      height: t?.height ?? src?.height ?? DEFAULT_SLATE_PROFILE.height,
      fps: t?.fps ?? DEFAULT_SLATE_PROFILE.fps,
      sampleRate: DEFAULT_SLATE_PROFILE.sampleRate
    }
  }

  async function engageSlate (): Promise<void> {
    const failures = sources.totalFailures()
    let file: string
    try {
      file = await c.slates.get(currentSlateProfile())
    } catch (err) {
      log(`watchdog: ${(err as Error).message}; retrying the source instead`)
      sources.reset()
      backoff(s.backoffMaxMs)
      return
    }
    if (stopping) return
    slate = { slated: true, file, since: Date.now(), failures }
    state = 'up'
    backoffMs = null
    c.events.slateOn(failures, file)
    log(`watchdog: ${failures} consecutive failures on every source; looping the offline slate`)
    if (retryTimer) clearInterval(retryTimer)
    retryTimer = setInterval(() => { retrySources().catch((err: Error) => log(`watchdog: slate retry: ${err.message}`)) }, s.slateRetryMs)
    await spawnSlate()
  }

  async function spawnSlate (): Promise<void> {
    if (stopping || !slate.slated || !slate.file) return
    const current = await startRun({
      ffmpeg: s.ffmpeg, prefix: s.ffmpegPrefix, args: slateArgs(slate.file, out()), writer, dir: init.scratchDir, stallMs,
      idleUntilFirstSegment: false, onLine: log, onInputProfile: () => {}, onSegment
    })
    run = current
    runIsSlate = true
    if (stopping) { await current.stop(); return }
    void current.done.then((r) => {
      if (run !== current || stopping || !slate.slated) return
      run = null
      log(`watchdog: slate ffmpeg exited (code ${String(r.exit.code)}), restarting it`)
      schedule(() => { spawnSlate().catch((err: Error) => log(`watchdog: slate: ${err.message}`)) }, s.backoffMinMs)
    })
  }

  async function retrySources (): Promise<void> {
    if (retrying || stopping || !slate.slated) return
    retrying = true
    try {
      for (const [index, source] of sources.all().entries()) {
        const probed = await probeSource(s.ffprobe, source, Math.min(PROBE_TIMEOUT_MS, s.slateRetryMs))
        if (stopping || !slate.slated) return
        c.events.slateRetry(source, probed.ok, probed.ok ? undefined : probed.error)
        if (!probed.ok) continue
        profiles.set(source, probed.profile)
        log(`watchdog: ${safeSource(source)} is healthy again; dropping the slate`)
        if (retryTimer) clearInterval(retryTimer)
        retryTimer = null
        // Not 'up' until the real source feeds a segment.
        state = 'starting'
        slate = { slated: false, file: slate.file, since: null, failures: 0 }
        const ending = run
        run = null
        await ending?.stop()
        sources.select(index)
        consecutive = 0
        c.events.slateOff(source)
        respawn()
        return
      }
    } finally {
      retrying = false
    }
  }

  return {
    start () {
      stopping = false
      respawn()
    },
    async stop () {
      stopping = true
      if (timer) clearTimeout(timer)
      if (retryTimer) clearInterval(retryTimer)
      presence.stop()
      timer = retryTimer = null
      const ending = run
      run = null
      await Promise.all([ending?.stop(), beside.stop()])
      state = 'stopped'
    },
    async setWriter (w) {
      writer = w
      await run?.swapWriter(w)
      if (run && !runIsSlate) slateProfile = toSlateProfile(run) ?? slateProfile
    },
    status () {
      if (run && !runIsSlate) slateProfile = toSlateProfile(run) ?? slateProfile
      const p = profiles.get(sources.current())
      return {
        state,
        ffmpegUp: run?.ffmpeg.running ?? false,
        restarts,
        lastExit,
        watchdog: {
          consecutiveFailures: consecutive,
          backoffMs: state === 'backoff' ? backoffMs : null,
          nextAttemptAt,
          source: safeSource(sources.current()),
          failures: sources.all().map((src, i) => ({ source: safeSource(src), failures: sources.failuresAt(i) }))
        },
        slate: { ...slate },
        detectedProfile: p ? { codec: p.videoCodec, width: p.width, height: p.height } : null
      }
    }
  }
}

function toSlateProfile (run: Run): SlateProfile | null {
  const o = run.outputProfile()
  if (!o) return null
  return { width: o.width, height: o.height, fps: o.fps ?? DEFAULT_SLATE_PROFILE.fps, sampleRate: o.sampleRate ?? DEFAULT_SLATE_PROFILE.sampleRate }
}

function tailOf (run: Run): string {
  return run.ffmpeg.tail().slice(-1)[0] ?? 'no output'
}

export const scratchDirFor = (root: string, id: string) => join(root, id)

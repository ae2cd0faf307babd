/**
 * A player model that plays an HLS live stream in real time from a buffer, as hls.js does
 * by default: it starts 3 target durations behind the live edge (liveSyncDurationCount 3),
 * loads one segment at a time in order, reloads the playlist about every target duration
 * while waiting for the next segment, and plays media time at wall-clock speed while the
 * buffer holds any. Every moment the playhead reaches the end of the buffer is a stall.
 * It decodes nothing: "first frame" is the moment its first segment is fully loaded.
 */

export interface PlayerModelInit {
  /** The playlist URL (the SDK's local server). */
  url: string
  /** The moment the app started (for the join time). Default: now. */
  startedAt?: number
  /** Ends the model. */
  signal: AbortSignal
  /** Bound on each request. Default 20 s. */
  requestTimeoutMs?: number
  now?: () => number
}

export interface PlayerModelStats {
  /** App start → first segment loaded, ms (null before). */
  joinMs: number | null
  /** Media played, ms. */
  playedMs: number
  stalls: number
  stallMs: number
  /** Every finished stall: when it began (wall ms) and how long it lasted. */
  stallLog: Array<{ at: number; ms: number }>
  /** The longest single stall, ms. */
  longestStallMs: number
  /** stallMs / (playedMs + stallMs). */
  rebufferRatio: number
  segments: number
  bytes: number
  /** Segments that left the playlist before the model got to them (jumped over). */
  skipped: number
  /** Failed requests (retried). */
  errors: number
  /** Media sequence numbers loaded, with the wall time each finished loading (for latency). */
  loaded: Array<{ seq: number; at: number }>
  /** Wall time each loaded segment began playing (seq → ms). */
  played: Array<{ seq: number; at: number }>
}

interface Playlist { target: number; mediaSequence: number; segments: Array<{ seq: number; uri: string; duration: number }>; ended: boolean }

/** Parses the subset of an HLS media playlist the model needs. */
export function parsePlaylist (text: string): Playlist {
  let target = 2
  let mediaSequence = 0
  let ended = false
  let duration: number | null = null
  const segments: Playlist['segments'] = []
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (line.startsWith('#EXT-X-TARGETDURATION:')) target = Number(line.slice(22)) || target
    else if (line.startsWith('#EXT-X-MEDIA-SEQUENCE:')) mediaSequence = Number(line.slice(22)) || 0
    else if (line.startsWith('#EXTINF:')) duration = Number.parseFloat(line.slice(8))
    else if (line === '#EXT-X-ENDLIST') ended = true
    else if (line !== '' && !line.startsWith('#')) {
      segments.push({ seq: mediaSequence + segments.length, uri: line, duration: duration ?? target })
      duration = null
    }
  }
  return { target, mediaSequence, segments, ended }
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> => new Promise((resolve) => {
  if (signal.aborted) { resolve(); return }
  const timer = setTimeout(done, ms)
  function done (): void { clearTimeout(timer); signal.removeEventListener('abort', done); resolve() }
  signal.addEventListener('abort', done, { once: true })
})

/** Runs the model until `signal` aborts; `stats()` may be read at any time. */
export function runPlayerModel (init: PlayerModelInit): { stats: () => PlayerModelStats; done: Promise<void> } {
  const now = init.now ?? Date.now
  const startedAt = init.startedAt ?? now()
  const timeoutMs = init.requestTimeoutMs ?? 20_000
  const base = new URL(init.url)
  const s: PlayerModelStats = { joinMs: null, playedMs: 0, stalls: 0, stallMs: 0, longestStallMs: 0, rebufferRatio: 0, segments: 0, bytes: 0, skipped: 0, errors: 0, loaded: [], played: [], stallLog: [] }
  // Media timeline: buffered [0, bufferedMs) of media, in segment order.
  let bufferedMs = 0
  const starts: Array<{ seq: number; atMedia: number }> = []
  // Play clock: media position = anchorMedia + (now - anchorWall) while playing.
  let anchorWall = 0
  let anchorMedia = 0
  let stalledSince: number | null = null
  let playing = false

  const position = (t: number): number => Math.min(bufferedMs, anchorMedia + (t - anchorWall))
  /** Advances the clock to `t`: notes a stall that began when the playhead hit the buffer's end. */
  const advance = (t: number): void => {
    if (!playing || stalledSince !== null) return
    const reachEndAt = anchorWall + (bufferedMs - anchorMedia)
    if (t >= reachEndAt) { stalledSince = reachEndAt; anchorMedia = bufferedMs; anchorWall = reachEndAt }
  }
  const notePlayed = (): void => {
    const t = now()
    const pos = position(t)
    while (s.played.length < starts.length && starts[s.played.length]!.atMedia <= pos) {
      const st = starts[s.played.length]!
      s.played.push({ seq: st.seq, at: Math.round(anchorWall + (st.atMedia - anchorMedia)) })
    }
  }
  const stats = (): PlayerModelStats => {
    const t = now()
    advance(t)
    notePlayed()
    const current = stalledSince === null ? 0 : t - stalledSince
    const playedMs = playing ? position(t) : 0
    const stallMs = s.stallMs + current
    return { ...s, loaded: [...s.loaded], played: [...s.played], stallLog: [...s.stallLog, ...(stalledSince === null ? [] : [{ at: stalledSince, ms: current }])], playedMs, stallMs, longestStallMs: Math.max(s.longestStallMs, current), rebufferRatio: playedMs + stallMs > 0 ? stallMs / (playedMs + stallMs) : 0 }
  }

  const get = async (path: string): Promise<Response> => {
    const signal = AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)])
    return fetch(new URL(path, base), { signal })
  }

  const done = (async () => {
    let next: number | null = null
    while (!init.signal.aborted) {
      let list: Playlist
      try {
        const res = await get(base.pathname)
        if (!res.ok) { s.errors++; await res.arrayBuffer().catch(() => {}); await sleep(500, init.signal); continue }
        list = parsePlaylist(await res.text())
      } catch {
        if (init.signal.aborted) break
        s.errors++
        await sleep(500, init.signal)
        continue
      }
      if (list.segments.length === 0) { await sleep(500, init.signal); continue }
      if (next === null) next = list.ended ? list.segments[0]!.seq : list.segments[Math.max(0, list.segments.length - 3)]!.seq
      const first = list.segments[0]!.seq
      if (next < first) { s.skipped += first - next; next = first }
      // Load every listed segment from `next` on, one at a time, then wait for the playlist to move.
      for (const seg of list.segments) {
        if (seg.seq < next || init.signal.aborted) continue
        let body: ArrayBuffer
        try {
          const res = await get(seg.uri)
          if (!res.ok) { s.errors++; await res.arrayBuffer().catch(() => {}); break }
          body = await res.arrayBuffer()
        } catch {
          if (init.signal.aborted) break
          s.errors++
          break
        }
        const t = now()
        advance(t)
        starts.push({ seq: seg.seq, atMedia: bufferedMs })
        bufferedMs += seg.duration * 1000
        s.segments++
        s.bytes += body.byteLength
        s.loaded.push({ seq: seg.seq, at: t })
        if (!playing) {
          playing = true
          anchorWall = t
          anchorMedia = 0
          s.joinMs = t - startedAt
        } else if (stalledSince !== null) {
          const stall = t - stalledSince
          s.stalls++
          s.stallMs += stall
          s.longestStallMs = Math.max(s.longestStallMs, stall)
          s.stallLog.push({ at: stalledSince, ms: stall })
          stalledSince = null
          anchorWall = t
        }
        notePlayed()
        next = seg.seq + 1
      }
      if (list.ended && next > list.segments[list.segments.length - 1]!.seq) break
      await sleep(Math.max(250, (list.target * 1000) / 2), init.signal)
    }
  })()
  return { stats, done }
}

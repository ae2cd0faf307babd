import { PEERS_INTERVAL_MS } from './constants.js'
import type { SdkError } from './errors.js'
import { FeedSession } from './feed-session.js'
import { feedMedia } from './feed-media.js'
import type { ActiveSource, FeedChangedEvent, StatusEvent, TuneState } from './index.js'
import type { Network } from './network.js'
import type { MediaSource } from './server/routes.js'
import { Tuner, type TuneConfig } from './tuner.js'

export interface PlaybackDeps {
  net(): Network
  tune: TuneConfig
  /** Segments read ahead of the player (the local server's readAheadSegments). */
  readAheadSegments: number
  now(): number
  /** Local playlist URL (the server is up before anything plays). */
  localUrl(): string
  panelKey(): string | null
  status(e: StatusEvent): void
  error(err: SdkError): void
  peers(n: number): void
  feedChanged(e: FeedChangedEvent): void
}

interface Active {
  streamId: string | null
  source: 'p2p' | 'cdn'
  type: 'live' | 'vod'
  url: string
  session: FeedSession | null
  media: MediaSource | null
  tuner: Tuner | null
}

/**
 * The active stream behind the one local URL: opening feeds, the tune ladder (live only), the
 * peers tick, the feed-changed follow and manual reconnects. Vod titles get serving without any
 * self-heal machinery; redirect channels get nothing but their URL (spec 3 "resolve contract").
 */
export class Playback {
  private active: Active | null = null
  private candidate: FeedSession | null = null
  private candidateAbort = new AbortController()
  private peersTimer: ReturnType<typeof setInterval> | null = null
  private generation = 0

  constructor (private readonly deps: PlaybackDeps) {}

  source (): ActiveSource | null {
    const a = this.active
    return a === null ? null : { streamId: a.streamId, source: a.source, url: a.url, type: a.type }
  }

  media (): MediaSource | null { return this.active?.media ?? null }
  session (): FeedSession | null { return this.active?.session ?? null }

  /**
   * Serves a feed as the active stream; a live one starts the tune ladder at 'feed:open'.
   * `warm` is an already open session of the same feed (a zap-prefetched neighbor), adopted as is.
   */
  async playFeed (streamId: string | null, feedKey: string, encryptionKey: Uint8Array, type: 'live' | 'vod', warm?: FeedSession | null): Promise<void> {
    const gen = await this.clear()
    const net = this.deps.net()
    const session = warm?.feedKey === feedKey && warm.isOpen ? warm : new FeedSession(net.store, net.topics, { feedKey, encryptionKey, streamId, type, notAPeer: this.deps.panelKey(), now: this.deps.now })
    if (warm !== null && warm !== undefined && warm !== session) await warm.close()
    const active: Active = { streamId, source: 'p2p', type, url: this.deps.localUrl(), session, media: feedMedia(session, this.deps.now), tuner: null }
    this.active = active
    this.startPeers()
    await net.withRecovery(() => session.open())
    if (gen !== this.generation) return
    if (type === 'live') {
      active.tuner = this.tuner(active, session)
      active.tuner.start('feed:open')
    }
  }

  /** A redirect channel: the operator URL verbatim, no feed, no swarm join, no watchdog. */
  async playRedirect (streamId: string, url: string): Promise<void> {
    await this.clear()
    this.active = { streamId, source: 'cdn', type: 'live', url, session: null, media: null, tuner: null }
  }

  /**
   * The watched live stream's feedKey rotated: open the new feed, give it one tune attempt while
   * the old one keeps serving, then swap it in behind the same URL and emit 'feed-changed'. If
   * that attempt timed out, the ladder continues on the new feed at 'feed:retune'.
   */
  async follow (streamId: string, feedKey: string, encryptionKey: Uint8Array): Promise<void> {
    const a = this.active
    if (a === null || a.streamId !== streamId || a.source !== 'p2p' || a.type !== 'live' || a.session === null) return
    if (a.session.feedKey === feedKey || this.candidate?.feedKey === feedKey) return
    const gen = this.generation
    const net = this.deps.net()
    const next = new FeedSession(net.store, net.topics, { feedKey, encryptionKey, streamId, type: 'live', notAPeer: this.deps.panelKey(), now: this.deps.now, quietStart: false })
    this.candidateAbort.abort()
    await this.candidate?.close()
    this.candidate = next
    const abort = new AbortController()
    this.candidateAbort = abort
    let ok: boolean
    try {
      await next.open()
      ok = await playable(next, this.deps.tune.timeoutMs, abort.signal, this.deps.now)
    } catch {
      ok = false
    }
    if (gen !== this.generation || this.candidate !== next || this.active !== a) { await next.close(); return }
    this.candidate = null
    const old = a.session
    a.tuner?.stop()
    a.session = next
    a.media = feedMedia(next, this.deps.now)
    a.tuner = this.tuner(a, next)
    if (ok) a.tuner.adopt()
    else a.tuner.start('feed:retune')
    await old.close()
    this.deps.feedChanged({ streamId, feedKey, url: a.url })
  }

  /** Tears down the active feed's peer connections and dials fresh (manual redial). */
  async reconnect (): Promise<void> {
    const s = this.active?.session
    if (s !== null && s !== undefined) await this.redial(s)
  }

  /** Stops whatever plays; resolves the new generation number. */
  async clear (): Promise<number> {
    const gen = ++this.generation
    const a = this.active
    this.active = null
    this.stopPeers()
    const c = this.candidate
    this.candidate = null
    this.candidateAbort.abort()
    a?.tuner?.stop()
    await Promise.all([a?.session?.close(), c?.close()])
    return gen
  }

  private tuner (a: Active, session: FeedSession): Tuner {
    const streamId = a.streamId
    const status = (state: TuneState): void => { if (this.active === a) this.deps.status({ state, streamId }) }
    return new Tuner({
      config: this.deps.tune,
      status,
      fail: (err) => { if (this.active === a) this.deps.error(err) },
      playable: (ms, signal) => playable(session, ms, signal, this.deps.now),
      peers: () => session.peers(),
      retune: () => session.reopen(),
      reconnect: () => this.redial(session),
      relookup: () => session.relookup(),
      refresh: () => session.refreshTopic(),
      // Ready: fetch where a player will start before it asks (the first frame waits for it).
      onReady: () => session.readAheadStart(this.deps.readAheadSegments)
    })
  }

  private async redial (session: FeedSession): Promise<void> {
    const net = this.deps.net()
    const keys = session.peerKeys()
    for (const [key, info] of net.swarm.peers) {
      if (info.topics.some((t) => session.isTopic(t))) keys.add(key)
    }
    const panel = this.deps.panelKey()
    if (panel !== null) keys.delete(panel)
    net.dropConnections(keys)
    await session.relookup()
  }

  private startPeers (): void {
    this.stopPeers()
    this.peersTimer = setInterval(() => {
      const s = this.active?.session
      if (s !== null && s !== undefined) this.deps.peers(s.peers())
    }, PEERS_INTERVAL_MS)
  }

  private stopPeers (): void {
    if (this.peersTimer !== null) clearInterval(this.peersTimer)
    this.peersTimer = null
  }
}

/** A live feed is playable once a peer serves it and its playlist lists at least one segment. */
export async function playable (session: FeedSession, timeoutMs: number, signal: AbortSignal, now: () => number): Promise<boolean> {
  const deadline = now() + timeoutMs
  while (!signal.aborted) {
    const left = deadline - now()
    if (left <= 0) return false
    try {
      const list = await session.playlist(left, now())
      if (list.segments.length > 0 && session.peers() > 0) return true
    } catch {
      // not there yet
    }
    await sleep(Math.min(250, Math.max(0, deadline - now())))
  }
  return false
}

function sleep (ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

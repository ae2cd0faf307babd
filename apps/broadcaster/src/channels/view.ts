import type { UploadShapingStats } from '@arus/feed'
import type { PanelLink } from '../register.js'
import type { ChannelState, WatchdogStatus } from '../pipeline/watchdog.js'
import { hex } from '../util.js'
import { isPush, type Channel, type InputSpec, type Transcode } from './model.js'
import type { ChannelRuntime } from './runtime.js'

/** The channel status object (spec 2 "Channel status", GET /api/channels/:id). */

export interface ViewSettings { publicHost: string }

export interface ChannelView {
  id: string
  title: string
  category: string[]
  input: InputSpec
  transcode: Transcode | null
  buffer: Channel['buffer']
  hlsTime: number
  hlsListSize: number
  desiredRunning: boolean
  legacy: boolean
  state: ChannelState
  running: boolean
  ffmpegUp: boolean
  peers: number
  registered: boolean
  registerError: string | null
  feedKey: string | null
  generation: number | null
  playlist: { segments: number; lastSequence: number | null; playlistVersion: number; bytesWritten: number } | null
  /** The current generation's uploads, counted at the replication layer, and its upload shaping counters (null when off). */
  egress: { uploadedBytes: number; shaping: UploadShapingStats | null } | null
  watchdog: Omit<WatchdogStatus['watchdog'], never> & { restarts: number; lastExit: WatchdogStatus['lastExit'] }
  slate: WatchdogStatus['slate']
  detectedProfile: WatchdogStatus['detectedProfile']
  ingest: { pushUrl: string } | null
  startedAt: number | null
}

const hostPart = (h: string) => (h.includes(':') ? `[${h}]` : h)

/** Where a publisher sends a push channel's stream (PUBLIC_HOST). */
export function pushUrl (ch: Channel, publicHost: string): string | null {
  const input = ch.input
  if (!isPush(input)) return null
  const host = hostPart(publicHost)
  switch (input.kind) {
    case 'rtmp': return `rtmp://${host}:${input.port}/${input.app}/${ch.id}`
    case 'srt': return `srt://${host}:${input.port}`
    case 'udp': return `udp://${host}:${input.port}`
  }
}

/** The input as shown to operators: an SRT passphrase is never echoed. */
export function publicInput (input: InputSpec): InputSpec {
  return input.kind === 'srt' && input.passphrase !== undefined ? { ...input, passphrase: '[redacted]' } : input
}

const IDLE: WatchdogStatus = {
  state: 'stopped',
  ffmpegUp: false,
  restarts: 0,
  lastExit: null,
  watchdog: { consecutiveFailures: 0, backoffMs: null, nextAttemptAt: null, source: '', failures: [] },
  slate: { slated: false, file: null, since: null, failures: 0 },
  detectedProfile: null
}

export function channelView (ch: Channel, rt: ChannelRuntime | null, link: PanelLink | null, s: ViewSettings, stored: { feedKey: string | null; generation: number } | null): ChannelView {
  const w = rt ? rt.watchdog.status() : IDLE
  const reg = link?.status(ch.id) ?? { registered: false, registerError: null }
  const feed = rt?.feed() ?? null
  const stats = feed?.writer.stats() ?? null
  const url = pushUrl(ch, s.publicHost)
  return {
    id: ch.id,
    title: ch.title,
    category: ch.category,
    input: publicInput(ch.input),
    transcode: ch.transcode,
    buffer: ch.buffer,
    hlsTime: ch.hlsTime,
    hlsListSize: ch.hlsListSize,
    desiredRunning: ch.desiredRunning,
    legacy: ch.legacy,
    state: w.state,
    running: rt !== null,
    ffmpegUp: w.ffmpegUp,
    peers: rt?.peers() ?? 0,
    registered: reg.registered,
    registerError: reg.registerError,
    feedKey: feed ? hex(feed.writer.feedKey) : stored?.feedKey ?? null,
    generation: feed?.generation ?? stored?.generation ?? null,
    playlist: stats ? { segments: stats.segments, lastSequence: stats.lastSequence, playlistVersion: stats.playlistVersion, bytesWritten: stats.bytesWritten } : null,
    egress: stats ? { uploadedBytes: stats.uploadedBytes, shaping: stats.shaping } : null,
    watchdog: { ...w.watchdog, restarts: w.restarts, lastExit: w.lastExit },
    slate: w.slate,
    detectedProfile: w.detectedProfile,
    ingest: url ? { pushUrl: url } : null,
    startedAt: rt?.startedAt ?? null
  }
}

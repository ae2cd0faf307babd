import { z } from 'zod'
import type { PanelLink } from '@arus/publisher'
import type { WatchdogStatus } from '../pipeline/watchdog.js'
import { hex } from '../util.js'
import { InputSpec, isPush, Transcode, type Channel } from './model.js'
import type { ChannelRuntime } from './runtime.js'

/** The channel status object (spec 2 "Channel status", GET /api/channels/:id). */

export interface ViewSettings { publicHost: string }

const Nullable = <T extends z.ZodType>(t: T) => t.nullable()
const Num = z.number()

/** The channel status object (spec 2 "Channel status"): every channel route answers one. */
export const ChannelViewReply = z.object({
  id: z.string(),
  title: z.string(),
  category: z.array(z.string()),
  input: InputSpec,
  transcode: Nullable(Transcode),
  buffer: z.enum(['disk', 'ram']),
  hlsTime: Num,
  hlsListSize: Num,
  desiredRunning: z.boolean(),
  legacy: z.boolean(),
  state: z.enum(['stopped', 'starting', 'up', 'waiting-input', 'backoff']),
  running: z.boolean(),
  ffmpegUp: z.boolean(),
  peers: Num,
  registered: z.boolean(),
  registerError: Nullable(z.string()),
  feedKey: Nullable(z.string()),
  generation: Nullable(Num),
  playlist: Nullable(z.object({ segments: Num, lastSequence: Nullable(Num), playlistVersion: Num, bytesWritten: Num })),
  egress: Nullable(z.object({ uploadedBytes: Num, shaping: Nullable(z.object({ served: Num, held: Num, cancelled: Num, released: Num, cancelWaitMs: Num, late: Num, relayServed: Num, bounced: Num.optional(), viewerServed: z.object({ repeat: Num, noRelay: Num, notRelayable: Num }).optional(), relayTransport: z.array(z.record(z.string(), Num)).optional() })) })),
  watchdog: z.object({
    consecutiveFailures: Num,
    backoffMs: Nullable(Num),
    nextAttemptAt: Nullable(Num),
    source: z.string(),
    failures: z.array(z.object({ source: z.string(), failures: Num })),
    restarts: Num,
    lastExit: Nullable(z.object({ code: Nullable(Num), signal: Nullable(z.string()), at: Num }))
  }),
  slate: z.object({ slated: z.boolean(), file: Nullable(z.string()), since: Nullable(Num), failures: Num }),
  detectedProfile: Nullable(z.object({ codec: Nullable(z.string()), width: Nullable(Num), height: Nullable(Num) })),
  ingest: Nullable(z.object({ pushUrl: z.string() })),
  startedAt: Nullable(Num)
})

export type ChannelView = z.infer<typeof ChannelViewReply>

/** GET /api/channels: the list convention `{channels: [...]}`. */
export const ChannelListReply = z.object({ channels: z.array(ChannelViewReply) })

/** GET /api/channels/:id/logs. */
export const ChannelLogsReply = z.object({
  lines: z.array(z.object({ t: Num, line: z.string() })),
  running: z.boolean(),
  restarts: Num,
  state: z.string()
})

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

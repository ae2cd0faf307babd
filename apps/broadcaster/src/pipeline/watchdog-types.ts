import type { FeedWriter } from '@arus/feed'
import type { LogRing } from './log-ring.js'
import type { SlateFactory } from './slate.js'

/** The watchdog's settings, events and status (watchdog.ts; spec 2 "Broadcaster channel state"). */

export type ChannelState = 'stopped' | 'starting' | 'up' | 'waiting-input' | 'backoff'

export interface WatchdogSettings {
  ffmpeg: string
  /** Prefix of every long-running ffmpeg command line (childPrefix). */
  ffmpegPrefix: readonly string[]
  ffprobe: string
  ingestBind: string
  slateEnabled: boolean
  slateAfter: number
  slateRetryMs: number
  backoffMinMs: number
  backoffMaxMs: number
  stallMs: number
}

export interface WatchdogEvents {
  respawn(): void
  sourceDown(source: string, detail: string): void
  sourceUp(source: string): void
  slateOn(failures: number, file: string): void
  slateOff(source: string): void
  slateRetry(source: string, ok: boolean, detail?: string): void
  /** A segment reached the feed (debug log `feed.segment`; `pnpm bench` times edge delay from it). */
  segment?(sequence: number | null): void
  /**
   * Whether the channel is on the air (the isLive it registers). Push inputs only: false
   * until a publisher feeds, true while one does, false once it has been gone for the grace.
   */
  onAir?(live: boolean): void
}

export interface WatchdogComponents { settings: WatchdogSettings; slates: SlateFactory; ring: LogRing; events: WatchdogEvents }

export interface WatchdogStatus {
  state: ChannelState
  ffmpegUp: boolean
  restarts: number
  lastExit: { code: number | null; signal: string | null; at: number } | null
  watchdog: { consecutiveFailures: number; backoffMs: number | null; nextAttemptAt: number | null; source: string; failures: Array<{ source: string; failures: number }> }
  slate: { slated: boolean; file: string | null; since: number | null; failures: number }
  detectedProfile: { codec: string | null; width: number | null; height: number | null } | null
}

export interface Watchdog {
  start(): void
  stop(): Promise<void>
  /** Mirror into a new feed generation from now on; ffmpeg keeps running (rotate). */
  setWriter(writer: FeedWriter): Promise<void>
  status(): WatchdogStatus
}

import type { FeedWriter } from '@arus/feed'
import type { PanelLink } from '@arus/publisher'
import type { LogRing } from '../pipeline/log-ring.js'
import type { SlateFactory } from '../pipeline/slate.js'
import { createWatchdog, scratchDirFor, type Watchdog, type WatchdogEvents, type WatchdogSettings } from '../pipeline/watchdog.js'
import { hex } from '../util.js'
import type { FeedHost, OpenFeed } from './feeds.js'
import { isPush, type Channel } from './model.js'

/**
 * A running channel: its open feed generation (seeded), the watchdog feeding it, its
 * registration, and upload counters. Built by the manager at start, torn down at stop.
 * A test, file or pull channel registers isLive true while it runs (a slate keeps it on
 * the air); a push channel registers isLive as its watchdog reports it (onAir): false until
 * a publisher feeds, false again once the publisher has been gone for the grace.
 */

export interface RuntimeComponents {
  feeds: FeedHost
  link: PanelLink | null
  slates: SlateFactory
  settings: WatchdogSettings
  scratchRoot: string
  ring: LogRing
  events: WatchdogEvents
  /** Adds uploaded bytes to the channel's egress counter. */
  onUpload(bytes: number): void
}

export interface ChannelRuntime {
  readonly channel: Channel
  readonly startedAt: number
  feed(): OpenFeed
  watchdog: Watchdog
  rotate(channel: Channel): Promise<void>
  /** Stops ffmpeg, registers isLive false (bounded) and closes the feed. */
  stop(): Promise<void>
  peers(): number
}

/** Counts bytes served from a generation's cores (hypercore 'upload' events). */
function countUploads (writer: FeedWriter, onUpload: (n: number) => void): void {
  const cores = [writer.drive.core, writer.drive.blobs?.core].filter((c) => c !== undefined && c !== null)
  for (const core of cores) core.on('upload', (_index: number, byteLength: number) => onUpload(byteLength))
}

export async function startRuntime (c: RuntimeComponents, channel: Channel): Promise<ChannelRuntime> {
  let current = await c.feeds.open(channel)
  countUploads(current.writer, c.onUpload)
  const key = await c.feeds.key(channel.id)
  let live = !isPush(channel.input)
  const register = () => c.link?.set(channel.id, {
    feedKey: hex(current.writer.feedKey), isLive: live, title: channel.title || channel.id, category: channel.category
  }, key)
  const onAir = (on: boolean) => {
    if (on === live) return
    live = on
    c.ring.push(`channel: ${on ? 'a publisher feeds: on the air (isLive true)' : 'no publisher: off the air (isLive false)'}`)
    register()
  }
  const watchdog = createWatchdog({ settings: c.settings, slates: c.slates, ring: c.ring, events: { ...c.events, onAir } }, channel, {
    writer: current.writer,
    scratchDir: scratchDirFor(c.scratchRoot, channel.id),
    nextSequence: current.nextSequence
  })
  c.ring.push(`channel: starting generation ${current.generation}, feedKey ${hex(current.writer.feedKey)}`)
  watchdog.start()
  register()

  return {
    channel,
    startedAt: Date.now(),
    feed: () => current,
    watchdog,
    async rotate (ch) {
      const next = await c.feeds.rotate(ch, current)
      countUploads(next.writer, c.onUpload)
      current = next
      await watchdog.setWriter(next.writer)
      c.ring.push(`channel: rotated to generation ${next.generation}, feedKey ${hex(next.writer.feedKey)}`)
      register()
    },
    async stop () {
      await watchdog.stop()
      live = false
      register()
      await current.close()
      c.ring.push('channel: stopped')
    },
    peers () {
      return current.writer.drive.core.peers.length
    }
  }
}

import type { Logger } from '@arus/service'
import { BroadcasterError } from '../errors.js'
import type { IncidentLog } from '../incidents.js'
import { createLogRing, type LogLine, type LogRing } from '../pipeline/log-ring.js'
import type { SlateFactory } from '../pipeline/slate.js'
import type { WatchdogSettings } from '../pipeline/watchdog.js'
import type { PanelLink } from '@arus/publisher'
import { attachStream, type AttachStreamReply } from './attach.js'
import type { FeedHost } from './feeds.js'
import { parseCategory, parseInput, parseTranscode } from './input.js'
import { CreateChannelBody, isPush, PatchChannelBody, PUSH_BASE_PORT, type BufferMode, type Channel, type InputSpec } from './model.js'
import { startRuntime, type ChannelRuntime } from './runtime.js'
import type { ChannelStores } from './store.js'
import { channelView, type ChannelView, type ViewSettings } from './view.js'

/**
 * The channel operations (spec 2 "Broadcaster" endpoints): one function per operation,
 * called by the control API and at boot. Operations on one channel are serialized.
 */

export interface ManagerComponents {
  stores: ChannelStores
  feeds: FeedHost
  link: PanelLink | null
  slates: SlateFactory
  incidents: IncidentLog
  onRespawn(channel: string): void
  log: Logger
}

export interface ManagerSettings extends ViewSettings {
  watchdog: WatchdogSettings
  scratchRoot: string
  defaults: { buffer: BufferMode; hlsTime: number; hlsListSize: number }
}

export interface LogsView { lines: LogLine[]; running: boolean; restarts: number; state: string }

export interface ChannelManager {
  list(): ChannelView[]
  get(id: string): ChannelView
  add(body: unknown, opts?: { legacy?: boolean; desiredRunning?: boolean }): Promise<ChannelView>
  patch(id: string, body: unknown): Promise<ChannelView>
  remove(id: string): Promise<void>
  start(id: string, opts?: { operator?: boolean }): Promise<ChannelView>
  stop(id: string): Promise<ChannelView>
  rotate(id: string): Promise<ChannelView>
  /** Attaches a stopped, never-started channel to a panel stream: its content key becomes `body.key` (attach.ts). */
  attach(id: string, body: unknown): Promise<AttachStreamReply>
  logs(id: string, lines?: number): LogsView
  /** Running channels' peers and egress totals (analytics, metrics). */
  counters(): Array<{ id: string; peers: number; egressBytesTotal: number }>
  /** Stops every channel (registers isLive false) but keeps desiredRunning for the next boot. */
  close(): Promise<void>
}

export function createChannelManager (c: ManagerComponents, s: ManagerSettings): ChannelManager {
  const runtimes = new Map<string, ChannelRuntime>()
  const rings = new Map<string, LogRing>()
  const egress = new Map<string, number>()
  const locks = new Map<string, Promise<unknown>>()
  let closing = false

  const ring = (id: string) => { let r = rings.get(id); if (!r) { r = createLogRing(); rings.set(id, r) } return r }
  const need = (id: string): Channel => {
    const ch = c.stores.channels.get(id)
    if (!ch) throw BroadcasterError.notFound(`channel "${id}"`)
    return ch
  }
  const view = (ch: Channel) => channelView(ch, runtimes.get(ch.id) ?? null, c.link, s, c.stores.identities.get(ch.id) ?? null)

  /** Runs `fn` after every earlier operation on the same channel. */
  function serial<T> (id: string, fn: () => Promise<T>): Promise<T> {
    const prev = locks.get(id) ?? Promise.resolve()
    const next = prev.catch(() => {}).then(() => {
      if (closing) throw BroadcasterError.closed()
      return fn()
    })
    locks.set(id, next)
    void next.finally(() => { if (locks.get(id) === next) locks.delete(id) }).catch(() => {})
    return next
  }

  /** Gives a push input its port: the requested one if no other channel uses it, else the first free from the kind's base. */
  function withPort (id: string, input: InputSpec): InputSpec {
    if (!isPush(input)) return input
    const taken = new Set(Object.values(c.stores.channels.all()).filter((ch) => ch.id !== id && isPush(ch.input)).map((ch) => (ch.input as { port?: number }).port))
    if (input.port !== undefined) {
      if (taken.has(input.port)) throw new BroadcasterError('BROADCASTER_PORT_IN_USE', `port ${input.port} is already used by another channel`)
      return input
    }
    let port = PUSH_BASE_PORT[input.kind]
    while (taken.has(port)) port++
    return { ...input, port }
  }

  const events = (id: string) => ({
    respawn: () => { c.incidents.respawn(id); c.onRespawn(id) },
    sourceDown: (src: string, detail: string) => c.incidents.sourceDown(id, src, detail),
    sourceUp: (src: string) => c.incidents.sourceUp(id, src),
    slateOn: (failures: number, file: string) => c.incidents.slateOn(id, failures, file),
    slateOff: (src: string) => c.incidents.slateOff(id, src),
    slateRetry: (src: string, ok: boolean, detail?: string) => c.incidents.slateRetry(id, src, ok, detail),
    segment: (sequence: number | null) => c.log.debug({ event: 'feed.segment', channel: id, sequence, at: Date.now() }, 'segment appended to the feed')
  })

  async function save (ch: Channel): Promise<Channel> {
    await c.stores.channels.set(ch.id, ch)
    return ch
  }

  return {
    list: () => Object.values(c.stores.channels.all()).sort((a, b) => (a.id < b.id ? -1 : 1)).map(view),
    get: (id) => view(need(id)),

    add (raw, opts = {}) {
      const parsed = CreateChannelBody.safeParse(raw)
      if (!parsed.success) throw BroadcasterError.invalid(describeBody(parsed.error))
      const b = parsed.data
      return serial(b.id, async () => {
        if (c.stores.channels.get(b.id)) throw BroadcasterError.exists(`channel "${b.id}"`)
        const t = Date.now()
        const ch: Channel = {
          id: b.id,
          title: b.title ?? b.id,
          category: parseCategory(b.category) ?? [],
          input: withPort(b.id, parseInput(b.input)),
          transcode: b.transcode === undefined ? null : parseTranscode(b.transcode),
          buffer: b.buffer ?? s.defaults.buffer,
          hlsTime: b.hlsTime ?? s.defaults.hlsTime,
          hlsListSize: b.hlsListSize ?? s.defaults.hlsListSize,
          desiredRunning: opts.desiredRunning ?? false,
          legacy: opts.legacy ?? false,
          createdAt: t,
          updatedAt: t
        }
        await c.feeds.key(ch.id) // the content key exists from creation on
        c.log.info({ event: 'channel.added', channel: ch.id, kind: ch.input.kind }, 'channel added')
        return view(await save(ch))
      })
    },

    patch (id, raw) {
      const parsed = PatchChannelBody.safeParse(raw)
      if (!parsed.success) throw BroadcasterError.invalid(describeBody(parsed.error))
      const b = parsed.data
      return serial(id, async () => {
        const ch = need(id)
        const next: Channel = {
          ...ch,
          ...(b.title !== undefined ? { title: b.title } : {}),
          ...(b.category !== undefined ? { category: parseCategory(b.category)! } : {}),
          ...('input' in b && b.input !== undefined ? { input: withPort(id, parseInput(b.input)) } : {}),
          ...('transcode' in b && b.transcode !== undefined ? { transcode: parseTranscode(b.transcode) } : {}),
          ...(b.buffer !== undefined ? { buffer: b.buffer } : {}),
          ...(b.hlsTime !== undefined ? { hlsTime: b.hlsTime } : {}),
          ...(b.hlsListSize !== undefined ? { hlsListSize: b.hlsListSize } : {}),
          updatedAt: Date.now()
        }
        return view(await save(next))
      })
    },

    remove (id) {
      return serial(id, async () => {
        need(id)
        if (runtimes.has(id)) throw BroadcasterError.running(id)
        await c.stores.channels.delete(id)
        c.link?.forget(id)
        rings.delete(id)
        c.log.info({ event: 'channel.removed', channel: id }, 'channel removed (feed identity kept)')
      })
    },

    start (id, opts = {}) {
      return serial(id, async () => {
        let ch = need(id)
        if (opts.operator) ring(id).clear()
        if (!ch.desiredRunning) ch = await save({ ...ch, desiredRunning: true })
        if (runtimes.has(id)) return view(ch)
        const rt = await startRuntime({
          feeds: c.feeds, link: c.link, slates: c.slates, settings: s.watchdog, scratchRoot: s.scratchRoot, ring: ring(id),
          events: events(id), onUpload: (n) => egress.set(id, (egress.get(id) ?? 0) + n)
        }, ch)
        runtimes.set(id, rt)
        c.log.info({ event: 'channel.started', channel: id }, 'channel started')
        return view(ch)
      })
    },

    stop (id) {
      return serial(id, async () => {
        let ch = need(id)
        if (ch.desiredRunning) ch = await save({ ...ch, desiredRunning: false })
        const rt = runtimes.get(id)
        runtimes.delete(id)
        await rt?.stop()
        if (rt) c.log.info({ event: 'channel.stopped', channel: id }, 'channel stopped')
        return view(ch)
      })
    },

    rotate (id) {
      return serial(id, async () => {
        const ch = need(id)
        const rt = runtimes.get(id)
        if ((rt?.channel.buffer ?? ch.buffer) !== 'disk') throw BroadcasterError.rotateNotDisk(id)
        if (!rt) throw BroadcasterError.stopped(id)
        await rt.rotate(rt.channel)
        c.log.info({ event: 'channel.rotated', channel: id }, 'feed generation rotated')
        return view(ch)
      })
    },

    attach (id, body) {
      return serial(id, async () => {
        const r = await attachStream({ stores: c.stores, running: (x) => runtimes.has(x) }, id, body)
        if (r.changed) c.log.info({ event: 'channel.attached', channel: id }, "channel attached to a panel stream (content key set to the stream's)")
        return r
      })
    },

    logs (id, lines) {
      const v = view(need(id))
      return { lines: ring(id).lines(lines), running: v.running, restarts: v.watchdog.restarts, state: v.state }
    },

    counters: () => [...runtimes.entries()].map(([id, rt]) => ({ id, peers: rt.peers(), egressBytesTotal: egress.get(id) ?? 0 })),

    async close () {
      closing = true
      await Promise.allSettled([...locks.values()])
      const all = [...runtimes.values()]
      runtimes.clear()
      await Promise.allSettled(all.map((rt) => rt.stop()))
    }
  }
}

function describeBody (error: { issues: Array<{ path: PropertyKey[]; message: string; code: string }> }): string {
  const i = error.issues[0]
  if (!i) return 'invalid body'
  const at = i.path.map(String).join('.')
  return at ? `${at}: ${i.message}` : i.message
}

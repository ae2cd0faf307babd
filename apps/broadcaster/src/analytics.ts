import { z } from 'zod'
import { keyedRecord, readJsonFile, writeJsonAtomic } from '@arus/service'

/**
 * Broadcaster analytics (spec 2 "Broadcaster analytics"): a sample every 5 minutes of each
 * channel's peers (min/max/mean/samples), egress bytes and respawns, folded into hourly
 * buckets by UTC day. Stream ids and counts only — never peer keys or addresses.
 */

const PeerStats = z.object({ min: z.number(), max: z.number(), mean: z.number(), samples: z.number().int() })
const ChannelHour = z.object({ peers: PeerStats, egressBytes: z.number(), respawns: z.number().int() })
const Hour = z.object({ channels: z.record(z.string(), ChannelHour), incidents: z.number().int() })
const Day = z.object({ date: z.string(), hours: z.record(z.string(), Hour) })
export type AnalyticsDay = z.infer<typeof Day>
const AnalyticsFile = z.object({ v: z.literal(1), days: z.array(Day) })

/** GET /api/analytics: hourly buckets by UTC day and the last sample. */
export const AnalyticsReply = z.object({
  enabled: z.boolean(),
  retentionDays: z.number().int(),
  days: z.array(Day),
  current: z.object({ at: z.number(), channels: z.record(z.string(), z.object({ peers: z.number(), egressBytesTotal: z.number() })) }).nullable()
})

/** What one sample reads from a channel. */
export interface ChannelCounters { id: string; peers: number; egressBytesTotal: number }

export interface CurrentSample { at: number; channels: Record<string, { peers: number; egressBytesTotal: number }> }

export interface AnalyticsView {
  enabled: boolean
  retentionDays: number
  days: AnalyticsDay[]
  current: CurrentSample | null
}

export interface AnalyticsInit {
  enabled: boolean
  retentionDays: number
  sampleMs: number
  path: string | null
  now?: () => number
}

export interface Analytics {
  /** Starts sampling `read` every sampleMs (the channel manager's counters, built after the analytics). */
  start(read: () => ChannelCounters[]): void
  respawn(channel: string): void
  incident(): void
  /** Takes one sample now (the timer calls it every sampleMs). */
  sample(): Promise<void>
  view(days?: number): AnalyticsView
  /** The last sample (metrics read peers and egress from it). */
  current(): CurrentSample | null
  close(): Promise<void>
}

export async function openAnalytics (init: AnalyticsInit): Promise<Analytics> {
  const now = init.now ?? Date.now
  const file = init.path && init.enabled ? await readJsonFile(init.path, AnalyticsFile, { missing: 'null' }).catch(() => null) : null
  // Channel ids key the hours' maps: without a prototype, a channel named `constructor` counts like any other.
  let days: AnalyticsDay[] = (file?.days ?? []).map((d) => ({ ...d, hours: keyedRecord(Object.entries(d.hours).map(([h, x]) => [h, { ...x, channels: keyedRecord(x.channels) }] as const)) }))
  let current: CurrentSample | null = null
  const respawns = new Map<string, number>()
  const lastTotals = new Map<string, number>()
  let writing: Promise<void> = Promise.resolve()
  let read: (() => ChannelCounters[]) | null = null
  let timer: NodeJS.Timeout | null = null

  const hourOf = (t: number) => {
    const d = new Date(t)
    const date = d.toISOString().slice(0, 10)
    let day = days.find((x) => x.date === date)
    if (!day) {
      day = { date, hours: keyedRecord() }
      days.push(day)
      days.sort((a, b) => (a.date < b.date ? -1 : 1))
      const cutoff = new Date(t - (init.retentionDays - 1) * 86_400_000).toISOString().slice(0, 10)
      days = days.filter((x) => x.date >= cutoff)
    }
    const h = String(d.getUTCHours())
    return (day.hours[h] ??= { channels: keyedRecord(), incidents: 0 })
  }

  async function sample (): Promise<void> {
    if (!init.enabled || read === null) return
    const t = now()
    const hour = hourOf(t)
    const channels: CurrentSample['channels'] = keyedRecord()
    for (const c of read()) {
      channels[c.id] = { peers: c.peers, egressBytesTotal: c.egressBytesTotal }
      const previous = lastTotals.get(c.id) ?? 0
      const delta = c.egressBytesTotal >= previous ? c.egressBytesTotal - previous : c.egressBytesTotal
      lastTotals.set(c.id, c.egressBytesTotal)
      const ch = (hour.channels[c.id] ??= { peers: { min: c.peers, max: c.peers, mean: 0, samples: 0 }, egressBytes: 0, respawns: 0 })
      const p = ch.peers
      p.min = Math.min(p.min, c.peers)
      p.max = Math.max(p.max, c.peers)
      p.mean = (p.mean * p.samples + c.peers) / (p.samples + 1)
      p.samples++
      ch.egressBytes += delta
      ch.respawns += respawns.get(c.id) ?? 0
      respawns.delete(c.id)
    }
    current = { at: t, channels }
    if (init.path) {
      const path = init.path
      const snapshot = { v: 1, days }
      writing = writing.then(() => writeJsonAtomic(path, snapshot, { mode: 0o600 })).catch(() => {})
      await writing
    }
  }

  return {
    start (source) {
      read = source
      if (!init.enabled || timer !== null) return
      timer = setInterval(() => { void sample() }, init.sampleMs)
      timer.unref()
    },
    respawn (channel) { if (init.enabled) respawns.set(channel, (respawns.get(channel) ?? 0) + 1) },
    incident () { if (init.enabled) hourOf(now()).incidents++ },
    sample,
    view (n = init.retentionDays) {
      const count = Math.max(1, Math.min(init.retentionDays, Math.floor(n)))
      return { enabled: init.enabled, retentionDays: init.retentionDays, days: structuredClone(days.slice(-count)), current }
    },
    current: () => current,
    async close () {
      if (timer) clearInterval(timer)
      await writing
    }
  }
}

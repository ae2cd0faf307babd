import { z } from 'zod'
import { readJsonFile, writeJsonAtomic } from '@arus/service'
import { safeSource } from './util.js'

/**
 * The correlated incident log (spec 2 "Incident", GET /api/incidents): fleet-wide respawn
 * bursts and per-source outage windows, plus slate-on, slate-off and slate-retry entries.
 * Newest first, bounded, persisted (incidents.json) so a restart keeps the history.
 */

export const INCIDENT_KINDS = ['respawn-burst', 'source-outage', 'slate-on', 'slate-off', 'slate-retry'] as const
export type IncidentKind = typeof INCIDENT_KINDS[number]

export const Incident = z.object({
  id: z.number().int(),
  kind: z.enum(INCIDENT_KINDS),
  /** The channel, or null for a fleet-wide burst. */
  channel: z.string().nullable(),
  /** Channels involved in a burst. */
  channels: z.array(z.string()).optional(),
  /** The failing or probed source (URL credentials hidden). */
  source: z.string().optional(),
  startedAt: z.number(),
  /** End of a window (burst, outage); null while open; equal to startedAt for point entries. */
  endedAt: z.number().nullable(),
  /** Respawns in a burst, failed runs in an outage, failures before a slate. */
  count: z.number().int(),
  /** slate-retry: whether the probe found the source healthy. */
  ok: z.boolean().optional(),
  detail: z.string().optional()
})
export type Incident = z.infer<typeof Incident>

/** GET /api/incidents: newest first, with the counts per kind. */
export const IncidentsReply = z.object({
  incidents: z.array(Incident),
  total: z.number().int(),
  open: z.number().int(),
  byKind: z.record(z.string(), z.number().int())
})

const IncidentsFile = z.object({ v: z.literal(1), nextId: z.number().int(), incidents: z.array(Incident) })

export interface IncidentLogInit {
  /** Respawns (fleet-wide) within `burstWindowMs` that make a burst. Default 5. */
  burstThreshold?: number
  burstWindowMs?: number
  /** Entries kept. Default 500. */
  max?: number
  now?: () => number
  onIncident?: (i: Incident) => void
}

export interface IncidentLog {
  respawn(channel: string): void
  sourceDown(channel: string, source: string, detail: string): void
  sourceUp(channel: string, source: string): void
  slateOn(channel: string, failures: number, file: string): void
  slateOff(channel: string, source: string): void
  slateRetry(channel: string, source: string, ok: boolean, detail?: string): void
  list(limit?: number): Incident[]
  /** Entries per kind and windows still open (the metrics gauge). */
  counts(): { total: number; open: number; byKind: Record<IncidentKind, number> }
  flush(): Promise<void>
}

export async function openIncidentLog (path: string | null, init: IncidentLogInit = {}): Promise<IncidentLog> {
  const { burstThreshold = 5, burstWindowMs = 60_000, max = 500, now = Date.now } = init
  const file = path ? await readJsonFile(path, IncidentsFile, { missing: 'null' }).catch(() => null) : null
  let items: Incident[] = file?.incidents ?? [] // newest first
  let nextId = file?.nextId ?? 1
  // Windows left open by a previous run are closed at its last known moment.
  for (const i of items) if (i.endedAt === null) i.endedAt = i.startedAt
  const respawns: Array<{ t: number; channel: string }> = []
  let burst: Incident | null = null
  const outages = new Map<string, Incident>()
  let dirty = false
  let writing: Promise<void> = Promise.resolve()

  const save = () => {
    if (!path) return
    dirty = true
    writing = writing.then(async () => {
      if (!dirty) return
      dirty = false
      await writeJsonAtomic(path, { v: 1, nextId, incidents: items }, { mode: 0o600 }).catch(() => {})
    })
  }
  const add = (entry: Omit<Incident, 'id'>): Incident => {
    const i = { id: nextId++, ...entry }
    items.unshift(i)
    if (items.length > max) items = items.slice(0, max)
    init.onIncident?.(i)
    save()
    return i
  }
  const point = (kind: IncidentKind, channel: string, rest: Partial<Incident> = {}) => {
    const t = now()
    add({ kind, channel, startedAt: t, endedAt: t, count: 1, ...rest })
  }

  return {
    respawn (channel) {
      const t = now()
      respawns.push({ t, channel })
      while (respawns.length > 0 && respawns[0]!.t < t - burstWindowMs) respawns.shift()
      if (burst && t - (burst.endedAt ?? burst.startedAt) > burstWindowMs) burst = null
      if (burst) {
        burst.count++
        burst.endedAt = t
        if (!burst.channels!.includes(channel)) burst.channels!.push(channel)
        save()
      } else if (respawns.length >= burstThreshold) {
        const channels = [...new Set(respawns.map((r) => r.channel))]
        burst = add({ kind: 'respawn-burst', channel: null, channels, startedAt: respawns[0]!.t, endedAt: t, count: respawns.length })
      }
    },
    sourceDown (channel, source, detail) {
      const key = `${channel}\n${source}`
      const open = outages.get(key)
      if (open) { open.count++; open.detail = detail; save(); return }
      outages.set(key, add({ kind: 'source-outage', channel, source: safeSource(source), startedAt: now(), endedAt: null, count: 1, detail }))
    },
    sourceUp (channel, source) {
      const key = `${channel}\n${source}`
      const open = outages.get(key)
      if (!open) return
      open.endedAt = now()
      outages.delete(key)
      save()
    },
    slateOn (channel, failures, slateFile) { point('slate-on', channel, { count: failures, detail: slateFile }) },
    slateOff (channel, source) { point('slate-off', channel, { source: safeSource(source) }) },
    slateRetry (channel, source, ok, detail) {
      point('slate-retry', channel, { source: safeSource(source), ok, ...(detail ? { detail } : {}) })
    },
    list (limit = max) { return items.slice(0, Math.max(0, limit)).map((i) => ({ ...i })) },
    counts () {
      const byKind = Object.fromEntries(INCIDENT_KINDS.map((k) => [k, 0])) as Record<IncidentKind, number>
      for (const i of items) byKind[i.kind]++
      return { total: items.length, open: items.filter((i) => i.endedAt === null).length, byKind }
    },
    async flush () { await writing }
  }
}

import type Hyperswarm from 'hyperswarm'
import { z } from 'zod'
import type { ChannelManager } from './channels/manager.js'
import type { Resume } from './channels/resume.js'
import type { PanelLink } from '@arus/publisher'

/** GET /api/status and the extra /healthz fields (spec 2 "Endpoints / Broadcaster"). */

export interface StatusSources {
  manager: ChannelManager
  link: PanelLink | null
  publisherName: string | undefined
  swarm: Hyperswarm
  resume: Resume
}

/** GET /api/status. */
export const StatusReply = z.object({
  channels: z.array(z.object({ id: z.string(), title: z.string(), state: z.string(), running: z.boolean(), slated: z.boolean(), registered: z.boolean(), registerError: z.string().nullable() })),
  running: z.number().int(),
  total: z.number().int(),
  panel: z.object({ configured: z.boolean(), connected: z.boolean(), publisher: z.string().nullable() }),
  swarm: z.object({ connections: z.number().int() }),
  resume: z.object({ resuming: z.boolean(), resumed: z.number().int(), total: z.number().int(), failed: z.number().int(), resumeSec: z.number().nullable() })
})
export type StatusReply = z.infer<typeof StatusReply>

/** Channels, running count, panel configured and connected, swarm connections, resume progress. */
export function serviceStatus (s: StatusSources): StatusReply {
  const list = s.manager.list()
  return {
    channels: list.map((c) => ({ id: c.id, title: c.title, state: c.state, running: c.running, slated: c.slate.slated, registered: c.registered, registerError: c.registerError })),
    running: list.filter((c) => c.running).length,
    total: list.length,
    panel: { configured: s.link !== null, connected: s.link?.connected() ?? false, publisher: s.publisherName ?? (s.link ? 'legacy' : null) },
    swarm: { connections: s.swarm.connections.size },
    resume: s.resume.status()
  }
}

/** /healthz extras: {resuming, resumed, total, failed, resumeSec} and the running channel count. Cheap. */
export function healthExtras (s: Pick<StatusSources, 'manager' | 'resume'>): Record<string, unknown> {
  return { ...s.resume.status(), channels: s.manager.counters().length }
}

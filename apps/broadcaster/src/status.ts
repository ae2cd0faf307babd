import type Hyperswarm from 'hyperswarm'
import type { ChannelManager } from './channels/manager.js'
import type { Resume } from './channels/resume.js'
import type { PanelLink } from './register.js'

/** GET /api/status and the extra /healthz fields (spec 2 "Endpoints / Broadcaster"). */

export interface StatusSources {
  manager: ChannelManager
  link: PanelLink | null
  publisherName: string | undefined
  swarm: Hyperswarm
  resume: Resume
}

/** Channels, running count, panel configured and connected, swarm connections, resume progress. */
export function serviceStatus (s: StatusSources): Record<string, unknown> {
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

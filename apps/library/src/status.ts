import { z } from 'zod'
import type { PanelLink } from '@arus/publisher'
import type { Library } from './titles/library.js'

export const StatusReply = z.object({
  titles: z.object({ titles: z.number(), queued: z.number(), ingesting: z.number(), ready: z.number(), error: z.number() }),
  publisher: z.string().nullable(),
  panelKey: z.string().nullable(),
  panelConnected: z.boolean(),
  swarmConnections: z.number()
})
export type StatusReply = z.infer<typeof StatusReply>
export type StatusSource = () => StatusReply

/** What /api/status and /healthz read. */
export interface StatusDeps {
  library: Library
  link: PanelLink | null
  publisherName: string | null
  panelKey: string | null
  swarm: { connections: { size: number } }
}

export function serviceStatus (d: StatusDeps): StatusReply {
  return {
    titles: d.library.counts(),
    publisher: d.publisherName,
    panelKey: d.panelKey,
    panelConnected: d.link?.connected() ?? false,
    swarmConnections: d.swarm.connections.size
  }
}

/** /healthz extras (spec 2: {ok, titles, ready, ingesting, queued, error, panelLink}); cheap and synchronous. */
export function healthExtras (d: StatusDeps): Record<string, unknown> {
  const n = d.library.counts()
  return {
    ok: true,
    ...n,
    panelLink: { configured: d.link !== null, connected: d.link?.connected() ?? false, pendingOps: d.library.pendingOps() },
    swarmConnections: d.swarm.connections.size
  }
}

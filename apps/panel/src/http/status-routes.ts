import { pairingCode, toHex } from '@arus/crypto'
import type { FastifyInstance } from '@arus/service'
import type { PanelContext } from '../context.js'
import { allUsers } from '../ops/user-scan.js'
import { listStreams } from '../ops/streams.js'
import { createDiskProbe } from './disk.js'
import { panelRoute } from './panel-route.js'
import { ObservabilityReply, StatusReply } from './schemas.js'

/** What the status routes read besides the context. */
export interface StatusSources {
  startedAt: number
  swarm: { connections: { size: number }; peers?: { size: number } } | null
}

/** GET /api/status and GET /api/observability (spec 1 "Health, status, monitoring"). */
export function statusRoutes (app: FastifyInstance, ctx: PanelContext, src: StatusSources): void {
  const tag = 'status'
  panelRoute(app, { method: 'GET', url: '/api/status', tag, summary: 'Counts and identity: users, streams, live, admins, panelKey, serviceName, pairingCode, escrowExport', response: StatusReply },
    async () => {
      let users = 0
      for await (const _u of allUsers(ctx)) users++
      const streams = await listStreams(ctx)
      return {
        users,
        streams: streams.length,
        live: streams.filter((s) => s.type === 'live' && s.isLive === true).length,
        admins: await ctx.admins.count(),
        panelKey: toHex(ctx.identity.publicKey),
        serviceName: ctx.settings.serviceName,
        pairingCode: pairingCode(ctx.identity.publicKey),
        // ESCROW_EXPORT: whether POST /api/identity/escrow exists (escrow-routes.ts).
        escrowExport: ctx.settings.escrowExport
      }
    })
  const disk = createDiskProbe(ctx.paths.dataDir)
  panelRoute(app, { method: 'GET', url: '/api/observability', tag, summary: 'Uptime, memory, swarm peers, data size, disk free and the last 200 activity entries', response: ObservabilityReply },
    async () => {
      const m = process.memoryUsage()
      return {
        uptimeSec: Math.floor((Date.now() - src.startedAt) / 1000),
        memory: { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers },
        swarm: { connections: src.swarm?.connections.size ?? 0, peers: src.swarm?.peers?.size ?? 0 },
        ...(await disk()),
        activity: ctx.activity.list()
      }
    })
}

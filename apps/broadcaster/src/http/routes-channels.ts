import type { FastifyInstance } from 'fastify'
import type { ConfigSnapshots } from '@arus/config-snapshots'
import { z } from 'zod'
import { DeletedReply, route } from '@arus/service'
import type { ChannelManager } from '../channels/manager.js'
import { AttachStreamInput, AttachStreamReply } from '../channels/attach.js'
import { ChannelId, CreateChannelBody, PatchChannelBody } from '../channels/model.js'
import { BroadcasterError } from '../errors.js'
import { ChannelListReply, ChannelLogsReply, ChannelViewReply } from '../channels/view.js'
import { LOG_RING_LINES } from '../pipeline/log-ring.js'

/**
 * Channel routes (spec 2 "Endpoints / Broadcaster"). Bodies are validated here only as far
 * as their shape goes; `input` and `transcode` accept a string or an object and are parsed
 * by the operations (a stringified object that does not parse is a 400, never a path).
 */

const IdParams = z.strictObject({ id: ChannelId })
// More lines than the ring holds is capped, not refused: a client asking for "all of them" gets the ring.
const LogsQuery = z.strictObject({
  lines: z.coerce.number().int().min(1).default(LOG_RING_LINES).transform((n) => Math.min(n, LOG_RING_LINES))
    .describe(`Lines to return (default and cap ${LOG_RING_LINES}; more is capped)`)
})

export function channelRoutes (app: FastifyInstance, manager: ChannelManager, snapshots: Pick<ConfigSnapshots, 'beforeDestructive'>): void {
  const tag = 'channels'
  route(app, { method: 'GET', url: '/api/channels', auth: true, tag, summary: 'Channels with live status', response: ChannelListReply },
    async () => ({ channels: manager.list() }))
  route(app, { method: 'POST', url: '/api/channels', auth: true, tag, status: 201, summary: 'Add a channel (stopped; start it with .../start)', body: CreateChannelBody, response: ChannelViewReply },
    async ({ body }) => manager.add(body))
  route(app, { method: 'GET', url: '/api/channels/:id', auth: true, tag, summary: 'Channel status object', params: IdParams, response: ChannelViewReply },
    async ({ params }) => manager.get(params.id))
  route(app, { method: 'PATCH', url: '/api/channels/:id', auth: true, tag, summary: 'Edit metadata, input, transcode, buffer or HLS settings; applies on next start (a source change mints a new feed generation)', params: IdParams, body: PatchChannelBody, response: ChannelViewReply },
    async ({ params, body }) => manager.patch(params.id, body))
  route(app, { method: 'DELETE', url: '/api/channels/:id', auth: true, tag, summary: 'Remove a stopped channel (its feed identity is kept); refused while running', params: IdParams, response: DeletedReply },
    async ({ params }) => {
      if (manager.get(params.id).running) throw BroadcasterError.running(params.id)
      await snapshots.beforeDestructive(`delete channel ${params.id}`)
      await manager.remove(params.id)
      return { deleted: params.id }
    })
  route(app, { method: 'POST', url: '/api/channels/:id/start', auth: true, tag, summary: 'Start: spawn the pipeline, seed the feed, register it (isLive true; a push channel once its publisher feeds); clears the log ring', params: IdParams, response: ChannelViewReply },
    async ({ params }) => manager.start(params.id, { operator: true }))
  route(app, { method: 'POST', url: '/api/channels/:id/stop', auth: true, tag, summary: 'Stop: tear the pipeline down and register isLive false', params: IdParams, response: ChannelViewReply },
    async ({ params }) => manager.stop(params.id))
  route(app, { method: 'POST', url: '/api/channels/:id/rotate', auth: true, tag, summary: 'Mint a fresh feed generation while ffmpeg keeps running (disk buffer only)', params: IdParams, response: ChannelViewReply },
    async ({ params }) => manager.rotate(params.id))
  route(app, { method: 'POST', url: '/api/channels/:id/attach', auth: true, tag, summary: "Attach a stopped, never-started channel to a stream created in the panel: its content key becomes the stream's key (the channel id is the stream id)", params: IdParams, body: AttachStreamInput, response: AttachStreamReply },
    async ({ params, body }) => manager.attach(params.id, body))
  route(app, { method: 'GET', url: '/api/channels/:id/logs', auth: true, tag, summary: `Recent log lines (at most ${LOG_RING_LINES}; a larger ?lines is capped)`, params: IdParams, query: LogsQuery, response: ChannelLogsReply },
    async ({ params, query }) => manager.logs(params.id, query.lines))
}

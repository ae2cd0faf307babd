import { z } from 'zod'
import { DeletedReply, route, type FastifyInstance } from '@arus/service'
import { TITLE_LOG_LINES, type Library } from '../titles/library.js'
import { AddTitleInput, IngestProgress, IngestTitleInput, PatchTitleInput, TitleId, TitleState, TitleView } from '../titles/model.js'
import { StatusReply, type StatusSource } from '../status.js'

const IdParams = z.strictObject({ id: TitleId })
// More lines than the ring holds is capped, not refused: a client asking for "all of them" gets the ring.
const LogsQuery = z.strictObject({
  lines: z.coerce.number().int().min(1).default(100).transform((n) => Math.min(n, TITLE_LOG_LINES))
    .describe(`Lines to return (default 100, cap ${TITLE_LOG_LINES}; more is capped)`)
})
const LogsReply = z.object({ lines: z.array(z.string()), state: TitleState, ingest: IngestProgress.nullable() })

/** The library's control API (spec 2 "Library" endpoint table). All need a control token. */
export function titleRoutes (app: FastifyInstance, library: Library, status: StatusSource): void {
  const tag = 'titles'
  route(app, { method: 'GET', url: '/api/status', auth: true, tag: 'status', summary: 'Titles summary, publisher, panel key, swarm connections', response: StatusReply },
    async () => status())
  route(app, { method: 'GET', url: '/api/titles', auth: true, tag, summary: 'Titles with state, ingest progress, peers and registration', response: z.object({ titles: z.array(TitleView) }) },
    async () => ({ titles: library.list() }))
  route(app, { method: 'POST', url: '/api/titles', auth: true, tag, status: 201, summary: 'Add a title and queue its ingest', body: AddTitleInput, response: TitleView },
    async ({ body }) => library.add(body))
  route(app, { method: 'GET', url: '/api/titles/:id', auth: true, tag, summary: 'One title', params: IdParams, response: TitleView },
    async ({ params }) => library.get(params.id))
  route(app, { method: 'PATCH', url: '/api/titles/:id', auth: true, tag, summary: 'Change input, mode or hlsTime (applied at the next ingest; descriptive metadata is panel-owned)', params: IdParams, body: PatchTitleInput, response: TitleView },
    async ({ params, body }) => library.patch(params.id, body))
  route(app, { method: 'POST', url: '/api/titles/:id/ingest', auth: true, tag, summary: 'Re-ingest into the next feed generation (fresh feedKey; viewers pick it up at their next tune)', params: IdParams, body: IngestTitleInput.optional(), response: TitleView },
    async ({ params, body }) => library.reingest(params.id, body?.input))
  route(app, { method: 'DELETE', url: '/api/titles/:id', auth: true, tag, summary: 'Delete a title (refused mid-ingest): stops seeding, purges its feed and key, registers status unavailable', params: IdParams, response: DeletedReply },
    async ({ params }) => library.remove(params.id))
  route(app, { method: 'GET', url: '/api/titles/:id/logs', auth: true, tag, summary: `The title's last log lines (pipeline and ffmpeg; at most ${TITLE_LOG_LINES}, a larger ?lines is capped), state and ingest progress`, params: IdParams, query: LogsQuery, response: LogsReply },
    async ({ params, query }) => library.logs(params.id, query.lines))
}

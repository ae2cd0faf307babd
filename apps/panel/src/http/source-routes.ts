import { z } from 'zod'
import type { FastifyInstance } from '@arus/service'
import type { PanelContext } from '../context.js'
import { syncSource } from '../ops/source-sync.js'
import {
  AddSourceBody, getSource, listSources, PatchSourceBody, removeSource, setSource, SourceChannels, sourceChannels, SourceList, SourceView,
  SyncReport, writeNewSource
} from '../ops/sources.js'
import { panelRoute } from './panel-route.js'
import { NameParams } from './schemas.js'

const RemoveQuery = z.object({ keepChannels: z.enum(['0', '1', 'true', 'false']).optional().describe('1: detach the channels as manual redirect channels instead of purging them') })
const RemoveReply = z.object({ deleted: z.string(), purged: z.number().int(), detached: z.number().int() })
const AddReply = SourceView.extend({ sync: SyncReport.nullable().describe('The first sync (null when it failed: see lastError)') })

/** Remote sources (spec 1 "Sources" routes). Every handler is one ops/ call. */
export function sourceRoutes (app: FastifyInstance, ctx: PanelContext, onChange: () => void = () => {}): void {
  const tag = 'sources'
  panelRoute(app, { method: 'GET', url: '/api/sources', tag, summary: 'Sources with owned-channel counts and the last sync report or error', response: SourceList },
    async () => ({ sources: await listSources(ctx) }))
  panelRoute(app, { method: 'POST', url: '/api/sources', tag, summary: 'Add a source and sync it at once (a JSON feed or an M3U playlist over https)', body: AddSourceBody, response: AddReply, status: 201 },
    async ({ body }) => {
      await writeNewSource(ctx, body)
      const sync = await syncSource(ctx, body.name).catch(() => null)
      // The scheduler learns of it after this first sync, so the two never pull at once.
      onChange()
      return { ...(await getSource(ctx, body.name)), sync }
    })
  panelRoute(app, { method: 'PATCH', url: '/api/sources/:name', tag, summary: 'Edit any source field incl. exclude:[{id,title}] (excluded channels go at once); a new url, prefix, category or exclude re-reads the full feed at the next sync', params: NameParams, body: PatchSourceBody, response: SourceView },
    async ({ params, body }) => { const v = await setSource(ctx, params.name, body); onChange(); return v })
  panelRoute(app, { method: 'GET', url: '/api/sources/:name/channels', tag, summary: 'Entries {feedId, id, title, order, excluded}', params: NameParams, response: SourceChannels },
    async ({ params }) => ({ channels: await sourceChannels(ctx, params.name) }))
  panelRoute(app, { method: 'DELETE', url: '/api/sources/:name', tag, summary: 'Remove a source (config snapshot first): purges its channels, or detaches them with keepChannels=1', params: NameParams, query: RemoveQuery, response: RemoveReply },
    async ({ params, query }) => {
      const r = await removeSource(ctx, params.name, { keepChannels: query.keepChannels === '1' || query.keepChannels === 'true' })
      onChange()
      return { deleted: params.name, ...r }
    })
  panelRoute(app, { method: 'POST', url: '/api/sources/:name/sync', tag, summary: 'Pull, diff and grant now; returns the sync report (a failure answers 502 and shows as lastError)', params: NameParams, response: SyncReport },
    async ({ params }) => syncSource(ctx, params.name))
}

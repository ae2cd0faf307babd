import { ownValue, type FastifyInstance } from '@arus/service'
import type { PanelContext } from '../context.js'
import { PanelError } from '../errors.js'
import { ART_KINDS, ArtReply, MAX_ART_BYTES, uploadArt } from '../ops/art.js'
import { readArt } from '../ops/assets.js'
import { PatchStreamBody, setMeta } from '../ops/stream-meta.js'
import { AddStreamBody, AddStreamReply, addStream, deleteStream, getStream, listStreams, StreamList, StreamView } from '../ops/streams.js'
import { panelRoute } from './panel-route.js'
import { ArtParams, AssetParams, DeletedReply, StreamParams } from './schemas.js'

/** Image media types the art upload accepts, and the file extension each is stored under. */
const ART_TYPES: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/jpg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/svg+xml': 'svg'
}

const CONTENT_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif', svg: 'image/svg+xml' }

/** Streams, art and assets (spec 1 "Streams, art, assets" routes). */
export function streamRoutes (app: FastifyInstance, ctx: PanelContext): void {
  const tag = 'streams'
  panelRoute(app, { method: 'GET', url: '/api/streams', tag, summary: 'The catalog records', response: StreamList },
    async () => ({ streams: await listStreams(ctx) }))
  panelRoute(app, {
    method: 'POST', url: '/api/streams', tag, status: 201, body: AddStreamBody, response: AddStreamReply,
    summary: 'Add a stream; an https url makes a redirect channel. The generated key is returned once, in `key`'
  }, async ({ body }) => addStream(ctx, body))
  panelRoute(app, {
    method: 'PATCH', url: '/api/streams/:id', tag, params: StreamParams, body: PatchStreamBody, response: StreamView,
    summary: 'Edit catalog metadata (title, description, category, order, featured, url, epgUrl/epgId, art, feedKey, isLive)'
  }, async ({ params, body }) => setMeta(ctx, params.id, body))
  panelRoute(app, { method: 'DELETE', url: '/api/streams/:id', tag, summary: 'Full purge: record, key, every grant, unused art', params: StreamParams, response: DeletedReply },
    async ({ params }) => { await deleteStream(ctx, params.id); return { deleted: params.id } })
  panelRoute(app, {
    method: 'POST', url: '/api/streams/:id/art/:kind', tag, params: ArtParams, response: ArtReply,
    rawBody: { contentTypes: ['image/*'], maxBytes: MAX_ART_BYTES },
    summary: 'Upload art (raw image body, at most 10 MiB) to the content-addressed assets drive'
  }, async ({ params, raw }, req) => {
    const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
    const ext = ownValue(ART_TYPES, type)
    if (ext === undefined) throw PanelError.invalid(`art must be one of ${Object.keys(ART_TYPES).join(', ')}`)
    const { path } = await uploadArt(ctx, params.id, params.kind, raw!, ext)
    return { path, stream: await getStream(ctx, params.id) }
  })
  panelRoute(app, {
    method: 'GET', url: '/api/assets/:id/:file', tag, params: AssetParams, produces: 'image/*',
    summary: "Art bytes of a stream, for previews (:file is poster, backdrop, logo or the asset's <hash>.<ext>)"
  }, async ({ params }, _req, reply) => {
    const stream = await getStream(ctx, params.id)
    const refs = ART_KINDS.map((k) => stream[k])
    const path = (ART_KINDS as readonly string[]).includes(params.file) ? stream[params.file as typeof ART_KINDS[number]] : `assets/${params.file}`
    if (!path.startsWith('assets/') || !refs.includes(path)) throw PanelError.notFound(`asset "${params.file}" of stream "${params.id}"`)
    const bytes = await readArt(ctx, path)
    // An uploaded SVG must never run as a page of this origin.
    void reply.type(CONTENT_TYPES[path.slice(path.lastIndexOf('.') + 1)] ?? 'application/octet-stream')
      .header('content-security-policy', "sandbox; default-src 'none'; style-src 'unsafe-inline'")
      .header('cache-control', 'private, max-age=3600')
    return bytes
  })
}

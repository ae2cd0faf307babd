import type { FastifyInstance } from '@arus/service'
import type { PanelContext } from '../context.js'
import { getVodConfig, PatchVodConfigBody, setVodConfig, VodConfigReply } from '../ops/vod-config.js'
import { panelRoute } from './panel-route.js'

/** VOD provider settings (spec 1 "VOD provider settings"). */
export function vodConfigRoutes (app: FastifyInstance, ctx: PanelContext): void {
  const tag = 'vod-config'
  panelRoute(app, { method: 'GET', url: '/api/vod-config', tag, summary: 'The svcmeta/vod record, or null until configured', response: VodConfigReply },
    async () => ({ vodConfig: await getVodConfig(ctx) }))
  panelRoute(app, { method: 'PATCH', url: '/api/vod-config', tag, summary: 'Merge settings (sources and params each replace their whole map); enabled needs apiBase and service; viewers see it at their next login', body: PatchVodConfigBody, response: VodConfigReply },
    async ({ body }) => ({ vodConfig: await setVodConfig(ctx, body) }))
}

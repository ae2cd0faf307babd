import { DeletedReply, route, type FastifyInstance } from '@arus/service'
import type { ConfigSnapshots } from './index.js'
import {
  BackupsReply, ConfigInfo, PlanInput, PlanReply, RestoreInput, RestoreReply, SnapshotIdParams, SnapshotList, SnapshotMeta,
  TakeSnapshotBody, TemplateEnvelope, TemplateImportInput, TemplateImportReply, TemplatePlanInput, TemplatePlanReply
} from './schemas.js'

/**
 * The shared config and backup routes of every daemon (spec 1 "Config snapshots, templates,
 * backups"; spec 2 "shared config and backup routes"). All need an admin token. Snapshot
 * contents are never served: only metadata, plans and the secret-free template.
 */
export function configRoutes (app: FastifyInstance, snapshots: ConfigSnapshots): void {
  const tag = 'config'
  route(app, { method: 'GET', url: '/api/config', auth: true, tag, summary: 'Config sections, restore support, snapshot directory and notes', response: ConfigInfo },
    async () => snapshots.info())
  route(app, { method: 'GET', url: '/api/config/snapshots', auth: true, tag, summary: 'On-box config snapshots, newest first (metadata only)', response: SnapshotList },
    async () => snapshots.list())
  route(app, { method: 'POST', url: '/api/config/snapshots', auth: true, tag, status: 201, summary: 'Take a config snapshot (kept on the box; older ones beyond CONFIG_SNAPSHOT_KEEP are pruned)', body: TakeSnapshotBody.optional(), response: SnapshotMeta },
    async ({ body }) => snapshots.take(body ?? {}))
  route(app, { method: 'GET', url: '/api/config/snapshots/:id', auth: true, tag, summary: 'Metadata and section sizes of one snapshot', params: SnapshotIdParams, response: SnapshotMeta },
    async ({ params }) => snapshots.show(params.id))
  route(app, { method: 'POST', url: '/api/config/snapshots/:id/plan', auth: true, tag, summary: 'Dry run of a restore: added, changed, left alone, removed, skipped, warnings', params: SnapshotIdParams, body: PlanInput.optional(), response: PlanReply },
    async ({ params, body }) => snapshots.plan(params.id, body ?? {}))
  route(app, { method: 'POST', url: '/api/config/snapshots/:id/restore', auth: true, tag, summary: 'Restore a snapshot (confirm: true; additive unless removeExtra; a snapshot is taken first)', params: SnapshotIdParams, body: RestoreInput.optional(), response: RestoreReply },
    async ({ params, body }) => snapshots.restore(params.id, body ?? {}))
  route(app, { method: 'DELETE', url: '/api/config/snapshots/:id', auth: true, tag, summary: 'Delete one snapshot', params: SnapshotIdParams, response: DeletedReply },
    async ({ params }) => snapshots.remove(params.id))
  route(app, { method: 'GET', url: '/api/config/template', auth: true, tag, summary: "Secret-free template of the current config (contains 'no-secrets'; omitted names each removal)", response: TemplateEnvelope },
    async () => snapshots.template())
  route(app, { method: 'POST', url: '/api/config/template/plan', auth: true, tag, summary: 'Dry run of a template import', body: TemplatePlanInput, response: TemplatePlanReply },
    async ({ body }) => snapshots.planTemplate(body.template))
  route(app, { method: 'POST', url: '/api/config/template/import', auth: true, tag, summary: 'Import a template (confirm: true): recreates structure, not entitlements; a snapshot is taken first', body: TemplateImportInput, response: TemplateImportReply },
    async ({ body }) => snapshots.importTemplate(body.template, { confirm: body.confirm }))
  route(app, { method: 'GET', url: '/api/backups', auth: true, tag, summary: 'Archives in the read-only BACKUP_DIR with age and freshness, and the host commands to use them (canRunHere is always false)', response: BackupsReply },
    async () => snapshots.backups())
}

import { z } from 'zod'
import { StreamId, Username } from '@arus/catalog'

/**
 * Path and query parameters of the admin API's routes, and the status replies. The request
 * bodies and replies of operations are the schemas their ops module exports (one per
 * operation, shared with the CLI and the docs).
 */

export const UserParams = z.object({ u: Username })
export const DeviceParams = z.object({ u: Username, deviceId: z.string().min(1).max(128) })
export const GrantParams = z.object({ u: Username, id: StreamId })
export const StreamParams = z.object({ id: StreamId })
export const ArtParams = z.object({ id: StreamId, kind: z.enum(['poster', 'backdrop', 'logo']) })
export const AssetParams = z.object({ id: StreamId, file: z.string().min(1).max(200).describe('poster, backdrop, logo, or the <hash>.<ext> file name') })
export const CategoryParams = z.object({ slug: z.string().min(1).max(200).describe('The category slug (a label is slugified)') })
export const DeleteCategoryQuery = z.object({ strip: z.enum(['true', 'false', '1', '0']).optional().describe('Also remove the category from every record') })
export const NameParams = z.object({ name: z.string().min(1).max(64) })

export const StatusReply = z.object({
  users: z.number(),
  streams: z.number(),
  live: z.number().describe('Live records with isLive true'),
  admins: z.number(),
  panelKey: z.string(),
  serviceName: z.string(),
  pairingCode: z.string().nullable(),
  escrowExport: z.boolean()
})

export const ActivityEntry = z.looseObject({ at: z.number(), event: z.string(), actor: z.string().nullable() })

export const ObservabilityReply = z.object({
  uptimeSec: z.number(),
  memory: z.object({ rss: z.number(), heapUsed: z.number(), heapTotal: z.number(), external: z.number(), arrayBuffers: z.number() }),
  swarm: z.object({ connections: z.number(), peers: z.number() }),
  dataSize: z.number().describe('Bytes used under DATA_DIR (like du)'),
  diskFree: z.number().nullable().describe('Bytes available on the DATA_DIR file system'),
  diskTotal: z.number().nullable(),
  activity: z.array(ActivityEntry).describe('The last 200 entries, newest first (in memory)')
})

export { DeletedReply } from '@arus/service'

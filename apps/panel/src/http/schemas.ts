import { z } from 'zod'
import { ArtRef, HttpsUrl, StreamId, Username } from '@arus/catalog'

/**
 * Request and response schemas of the admin API: one zod schema per shape gives the
 * validation, the handler types and the OpenAPI document (docs/panel-api.md).
 */

export const Hex32 = z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)')
export const Order = z.int().min(0).max(9999).nullable().describe('Rail sort key 0-9999, or null (unordered)')
export const Password = z.string().min(1).max(1024)
const Label = z.string().min(1).max(64)

// --- users ---------------------------------------------------------------

export const UserParams = z.object({ u: Username })
export const DeviceParams = z.object({ u: Username, deviceId: z.string().min(1).max(128) })
export const GrantParams = z.object({ u: Username, id: StreamId })

export const ListUsersQuery = z.object({
  prefix: z.string().max(64).optional().describe('Only usernames starting with this'),
  after: z.string().max(64).optional().describe('The `next` value of the previous page'),
  limit: z.coerce.number().int().min(1).max(1000).optional().describe('Page size (default 100)')
})

export const CreateUserBody = z.strictObject({ username: Username, password: Password })
export const PasswordBody = z.strictObject({ password: Password })
export const UserStatusBody = z.strictObject({ status: z.enum(['active', 'disabled']) })
export const MaxDevicesBody = z.strictObject({ maxDevices: z.int().min(1).max(100).describe('Concurrent device limit') })
export const GrantBody = z.strictObject({ streamId: StreamId })

export const DeviceView = z.object({
  deviceId: z.string(),
  label: z.string(),
  enrolledAt: z.number(),
  expiresAt: z.number().nullable(),
  tokenVersion: z.number(),
  status: z.string()
})

export const UserView = z.object({
  username: z.string(),
  status: z.enum(['active', 'disabled']),
  tokenVersion: z.number(),
  maxDevices: z.number(),
  devices: z.array(DeviceView),
  grants: z.array(z.string()).describe('Stream ids sealed to the user'),
  manualGrants: z.array(z.string()).describe('Grants given by hand (today: all of them)'),
  packages: z.array(z.string()).describe('Package names (none until packages exist)'),
  pub: z.string().describe('The user X25519 public key (hex)')
})

export const UserPage = z.object({ users: z.array(UserView), next: z.string().nullable() })
export const DevicesReply = z.object({ devices: z.array(DeviceView) })
export const ChangedReply = z.object({ changed: z.boolean() })

// --- streams -------------------------------------------------------------

export const StreamParams = z.object({ id: StreamId })
export const ArtParams = z.object({ id: StreamId, kind: z.enum(['poster', 'backdrop', 'logo']) })
export const AssetParams = z.object({ id: StreamId, file: z.string().min(1).max(200).describe('poster, backdrop, logo, or the <hash>.<ext> file name') })

const UrlOrEmpty = z.union([z.literal(''), HttpsUrl])

export const AddStreamBody = z.strictObject({
  id: StreamId,
  title: z.string().min(1).max(200).optional(),
  description: z.string().max(4000).optional(),
  category: z.array(Label).max(16).optional(),
  feedKey: Hex32.nullable().optional(),
  key: Hex32.optional().describe('Use this stream key instead of generating one'),
  order: Order.optional(),
  featured: z.boolean().optional(),
  url: HttpsUrl.optional().describe('An https HLS URL makes a redirect channel')
})

export const PatchStreamBody = z.strictObject({
  title: z.string().min(1).max(200).optional(),
  description: z.string().max(4000).optional(),
  category: z.array(Label).max(16).optional(),
  order: Order.optional(),
  featured: z.boolean().optional(),
  url: UrlOrEmpty.optional().describe("https sets redirect (isLive true, status 'live' unless given); '' clears it (idle)"),
  epgUrl: UrlOrEmpty.optional().describe("https schedule feed; '' clears the EPG pair"),
  epgId: z.string().max(128).optional().describe("The channel id inside that feed; '' clears the EPG pair"),
  poster: ArtRef.optional(),
  backdrop: ArtRef.optional(),
  logo: ArtRef.optional(),
  feedKey: Hex32.nullable().optional().describe('Refused together with a redirect url'),
  isLive: z.boolean().optional()
}).refine((p) => Object.values(p).some((v) => v !== undefined), 'give at least one field')

export const StreamView = z.object({
  id: z.string(),
  v: z.number(),
  title: z.string(),
  description: z.string(),
  category: z.array(z.string()),
  type: z.enum(['live', 'vod']),
  protection: z.string(),
  isLive: z.boolean().optional(),
  durationSec: z.number().nullable().optional(),
  order: z.number().nullable(),
  featured: z.boolean(),
  poster: z.string(),
  backdrop: z.string(),
  logo: z.string(),
  feedKey: z.string().nullable(),
  blobsKey: z.string().nullable(),
  redirect: z.boolean(),
  url: z.string().nullable(),
  origin: z.string().nullable(),
  source: z.string().optional(),
  epgUrl: z.string().optional(),
  epgId: z.string().optional(),
  status: z.string()
})

export const StreamList = z.object({ streams: z.array(StreamView) })
export const AddStreamReply = z.object({ stream: StreamView, key: z.string().describe('The stream encryption key, returned this once') })
export const ArtReply = z.object({ path: z.string().describe('assets/<hash>.<ext>'), stream: StreamView })

// --- categories ------------------------------------------------------------

export const CategoryParams = z.object({ slug: z.string().min(1).max(200).describe('The category slug (a label is slugified)') })
export const CategoryView = z.object({
  slug: z.string(),
  label: z.string(),
  names: z.array(z.string()),
  streams: z.number(),
  renamed: z.string().nullable(),
  mergedInto: z.string().nullable(),
  rail: z.string(),
  order: z.number().nullable(),
  hidden: z.boolean(),
  configured: z.boolean()
})
export const CategoryList = z.object({ categories: z.array(CategoryView) })
const CategoryFields = {
  label: Label.nullable().optional().describe('Rename: the label rails show; null clears'),
  mergedInto: z.string().min(1).max(200).nullable().optional().describe('Show these channels under another category; null clears'),
  order: Order.optional(),
  hidden: z.boolean().optional().describe('Hide the rail')
}
export const CreateCategoryBody = z.strictObject({ name: z.string().min(1).max(200), ...CategoryFields })
export const PatchCategoryBody = z.strictObject(CategoryFields).refine((p) => Object.values(p).some((v) => v !== undefined), 'give at least one field')
export const OrderCategoriesBody = z.strictObject({ order: z.array(z.string().min(1).max(200)).min(1).max(10_000).describe('Slugs in rail order; they get order 0..n-1') })
export const DeleteCategoryQuery = z.object({ strip: z.enum(['true', 'false', '1', '0']).optional().describe('Also remove the category from every record') })
export const DeleteCategoryReply = z.object({ deleted: z.string(), stripped: z.number() })

// --- publishers ---------------------------------------------------

export const NameParams = z.object({ name: z.string().min(1).max(64) })

const Scopes = z.array(z.string().min(1).max(128)).max(256)
export const PublisherView = z.object({
  name: z.string(),
  publicKey: z.string(),
  scopes: z.array(z.string()),
  status: z.enum(['active', 'revoked']),
  createdAt: z.number()
})
export const PublisherList = z.object({ publishers: z.array(PublisherView) })
export const EnrollBody = z.strictObject({ name: z.string().min(1).max(64), scopes: Scopes.optional().describe("Stream-id globs (default ['*'])") })
export const EnrollReply = PublisherView.extend({ secretKey: z.string().describe("The site's PUBLISHER_KEY, returned this once") })
export const PublisherStatusBody = z.strictObject({ status: z.enum(['active', 'revoked']) })
export const ScopesBody = z.strictObject({ scopes: Scopes })

// --- status ------------------------------------------------------------------

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

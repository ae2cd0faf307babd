import { mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import { extname, isAbsolute, join } from 'node:path'
import { z } from 'zod'
import type { RouteTables } from '../routes.js'
import { backendOf, callJson, failureFrom, routeTool, ToolFailure, type RouteToolSpec, type ToolDef } from '../tool.js'
import { summarizeGrants } from './shape.js'

/** The panel's tools (spec 2 "Tool groups": panel reads, writes, purges) and their stated behaviors. */

/** A user as the tools return it: grant lists may be summarized as {count, sample}. */
const UserOut = z.looseObject({ username: z.string(), grants: z.union([z.array(z.string()), z.object({ count: z.number().int(), sample: z.array(z.string()) })]) })
const full = { full: z.boolean().optional().describe('Return whole grant lists (default: lists over 12 ids are summarized as {count, sample})') }
const users = (data: unknown, args: Record<string, unknown>) => summarizeGrants(data, args.full === true) as Record<string, unknown>

/** Image uploads (spec 2: at most 10 MiB, image extensions only). */
const ART_MAX_BYTES = 10 * 1024 * 1024
const ART_TYPES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.webp': 'image/webp', '.gif': 'image/gif' }

export function panelTools (t: RouteTables): ToolDef[] {
  const r = (s: Omit<RouteToolSpec, 'service'>) => routeTool(t, { ...s, service: 'panel' })
  const tools: ToolDef[] = [
    // reads
    r({ name: 'panel_status', route: 'GET /api/status', klass: 'R', title: 'Panel status' }),
    r({ name: 'panel_observability', route: 'GET /api/observability', klass: 'R', title: 'Panel observability' }),
    r({ name: 'panel_analytics', route: 'GET /api/analytics', klass: 'R', title: 'Panel analytics' }),
    r({ name: 'panel_list_users', route: 'GET /api/users', klass: 'R', title: 'List users', extra: full, transform: users, output: z.object({ users: z.array(UserOut), next: z.string().nullable() }) }),
    r({ name: 'panel_get_user', route: 'GET /api/users/:u', klass: 'R', title: 'Get a user', extra: full, transform: users, output: UserOut }),
    r({ name: 'panel_list_devices', route: 'GET /api/users/:u/devices', klass: 'R', title: 'List a user\'s devices' }),
    r({ name: 'panel_list_packages', route: 'GET /api/packages', klass: 'R', title: 'List packages' }),
    r({ name: 'panel_get_package', route: 'GET /api/packages/:name', klass: 'R', title: 'Get a package' }),
    r({ name: 'panel_list_sources', route: 'GET /api/sources', klass: 'R', title: 'List remote sources', untrusted: true }),
    r({ name: 'panel_source_channels', route: 'GET /api/sources/:name/channels', klass: 'R', title: 'A source\'s channels', untrusted: true }),
    r({ name: 'panel_list_categories', route: 'GET /api/categories', klass: 'R', title: 'List categories' }),
    r({ name: 'panel_vod_config', route: 'GET /api/vod-config', klass: 'R', title: 'VOD provider settings' }),
    r({ name: 'panel_list_publishers', route: 'GET /api/publishers', klass: 'R', title: 'List publishers' }),
    r({ name: 'panel_list_reports', route: 'GET /api/reports', klass: 'R', title: 'List viewer problem reports', untrusted: true }),
    r({ name: 'panel_list_alerts', route: 'GET /api/alerts', klass: 'R', title: 'List alerts', untrusted: true }),
    r({ name: 'panel_list_admins', route: 'GET /api/admins', klass: 'R', title: 'List panel admins' }),
    r({ name: 'panel_key_schedule', route: 'GET /api/key-schedule', klass: 'R', title: 'Login key schedules: users still on schedule 1 (keys without Argon2id)' }),
    // writes
    r({ name: 'panel_create_user', route: 'POST /api/users', klass: 'W', title: 'Create a user', transform: users }),
    r({ name: 'panel_set_user_password', route: 'POST /api/users/:u/password', klass: 'W', title: 'Set a user\'s password', idempotent: true, transform: users }),
    r({ name: 'panel_set_user_status', route: 'POST /api/users/:u/status', klass: 'W', title: 'Enable or disable a user', idempotent: true, transform: users }),
    r({ name: 'panel_set_max_devices', route: 'POST /api/users/:u/max-devices', klass: 'W', title: 'Set a user\'s device limit', idempotent: true, transform: users }),
    r({ name: 'panel_logout_all', route: 'POST /api/users/:u/logout-all', klass: 'W', title: 'End every session of a user', transform: users }),
    r({ name: 'panel_grant', route: 'POST /api/users/:u/grants', klass: 'W', title: 'Grant a stream to a user', idempotent: true }),
    r({ name: 'panel_set_user_packages', route: 'POST /api/users/:u/packages', klass: 'W', title: 'Set a user\'s packages', idempotent: true, transform: users }),
    r({
      name: 'panel_add_stream',
      route: 'POST /api/streams',
      klass: 'W',
      title: 'Add a stream',
      description: 'Add a stream (feedKey optional). A supplied key is stored panel-side and redacted from the result; an omitted one is generated and returned once',
      transform: (data, args) => (args.key !== undefined ? { ...data, key: '[redacted: the key you supplied is stored on the panel]' } : data)
    }),
    r({ name: 'panel_set_stream_meta', route: 'PATCH /api/streams/:id', klass: 'W', title: 'Edit a stream\'s metadata (feedKey too)', idempotent: true }),
    r({ name: 'panel_add_package', route: 'POST /api/packages', klass: 'W', title: 'Add a package' }),
    r({ name: 'panel_set_package', route: 'PATCH /api/packages/:name', klass: 'W', title: 'Edit a package', idempotent: true }),
    r({ name: 'panel_add_source', route: 'POST /api/sources', klass: 'W', title: 'Add a remote source (pulls it at once)', openWorld: true, untrusted: true }),
    r({ name: 'panel_set_source', route: 'PATCH /api/sources/:name', klass: 'W', title: 'Edit a remote source', idempotent: true, untrusted: true }),
    r({ name: 'panel_sync_source', route: 'POST /api/sources/:name/sync', klass: 'W', title: 'Pull a remote source now', openWorld: true, untrusted: true }),
    r({ name: 'panel_set_category', route: 'PATCH /api/categories/:slug', klass: 'W', title: 'Set a category\'s label, order, merge target or visibility', idempotent: true }),
    r({ name: 'panel_set_vod_config', route: 'PATCH /api/vod-config', klass: 'W', title: 'Set the VOD provider settings', idempotent: true }),
    r({ name: 'panel_set_publisher_scopes', route: 'POST /api/publishers/:name/scopes', klass: 'W', title: 'Set a publisher\'s scopes', idempotent: true }),
    r({ name: 'panel_set_publisher_status', route: 'POST /api/publishers/:name/status', klass: 'W', title: 'Activate or revoke a publisher', idempotent: true }),
    r({ name: 'panel_ack_report', route: 'POST /api/reports/:id/ack', klass: 'W', title: 'Acknowledge a report', idempotent: true, untrusted: true }),
    r({ name: 'panel_resolve_report', route: 'POST /api/reports/:id/resolve', klass: 'W', title: 'Resolve a report', idempotent: true, untrusted: true }),
    r({ name: 'panel_test_notify', route: 'POST /api/reports/test-notify', klass: 'W', title: 'Send a test notification', openWorld: true }),
    r({ name: 'panel_add_admin', route: 'POST /api/admins', klass: 'W', title: 'Add a panel admin' }),
    r({ name: 'panel_set_admin_password', route: 'POST /api/admins/:name/password', klass: 'W', title: 'Set a panel admin\'s password (if it is the tool server\'s own admin, update the config afterwards)', idempotent: true }),
    // purges
    r({ name: 'panel_delete_user', route: 'DELETE /api/users/:u', klass: 'D', title: 'Delete a user' }),
    r({ name: 'panel_revoke_device', route: 'DELETE /api/users/:u/devices/:deviceId', klass: 'D', title: 'Revoke one device of a user' }),
    r({ name: 'panel_revoke_grant', route: 'DELETE /api/users/:u/grants/:id', klass: 'D', title: 'Remove a manual grant (a package may still cover it)' }),
    r({ name: 'panel_delete_stream', route: 'DELETE /api/streams/:id', klass: 'D', title: 'Delete a stream (record, key, every grant)' }),
    r({ name: 'panel_delete_package', route: 'DELETE /api/packages/:name', klass: 'D', title: 'Delete a package' }),
    r({ name: 'panel_delete_source', route: 'DELETE /api/sources/:name', klass: 'D', title: 'Delete a remote source' }),
    r({ name: 'panel_delete_category', route: 'DELETE /api/categories/:slug', klass: 'D', title: 'Drop a category\'s registry entry (records keep their tag)', extra: {} }),
    r({ name: 'panel_remove_publisher', route: 'DELETE /api/publishers/:name', klass: 'D', title: 'Remove a publisher' }),
    r({ name: 'panel_reset_legacy_users', route: 'POST /api/key-schedule/reset', klass: 'D', title: 'Force a password reset on every schedule-1 user (each needs a new password to log in)' }),
    r({ name: 'panel_remove_admin', route: 'DELETE /api/admins/:name', klass: 'D', title: 'Remove a panel admin (if it is the tool server\'s own, update the config afterwards)' }),
    listStreams(),
    setStreamArt(),
    addPublisher(t),
    retag('panel_rename_category', 'W', 'Rename a category tag on every stream record'),
    retag('panel_merge_categories', 'D', 'Merge categories: rewrite every record tagged with one of `from` to `into`')
  ]
  return tools
}

const StreamsReply = z.object({ streams: z.array(z.looseObject({ id: z.string(), category: z.array(z.string()).optional() })) })

/** GET /api/streams with client-side filters (spec 2: category, prefix, idsOnly, limit). */
function listStreams (): ToolDef {
  return {
    name: 'panel_list_streams',
    group: 'panel',
    klass: 'R',
    title: 'List streams',
    description: 'The catalog records, filtered here by category, id prefix and limit; idsOnly returns ids alone. (GET /api/streams on the panel)',
    service: 'panel',
    input: z.strictObject({
      category: z.string().min(1).max(200).optional(),
      prefix: z.string().min(1).max(64).optional(),
      idsOnly: z.boolean().optional(),
      limit: z.number().int().min(1).max(10_000).optional()
    }),
    output: z.object({ streams: z.array(z.unknown()), total: z.number().int() }),
    async run (ctx, a) {
      const { streams } = StreamsReply.parse(await callJson(ctx, 'panel', 'GET', '/api/streams'))
      const cat = typeof a.category === 'string' ? a.category.toLowerCase() : null
      const hits = streams.filter((s) => (cat === null || (s.category ?? []).some((c) => c.toLowerCase() === cat)) && (typeof a.prefix !== 'string' || s.id.startsWith(a.prefix)))
      const page = hits.slice(0, typeof a.limit === 'number' ? a.limit : hits.length)
      return { data: { streams: a.idsOnly === true ? page.map((s) => s.id) : page, total: hits.length } }
    }
  }
}

/** Reads an image file and posts its bytes (spec 2: at most 10 MiB, image extensions only). */
function setStreamArt (): ToolDef {
  return {
    name: 'panel_set_stream_art',
    group: 'panel',
    klass: 'W',
    title: 'Upload a stream\'s art from an image file',
    description: 'Reads an image file on this machine (absolute path; .png .jpg .jpeg .webp .gif; at most 10 MiB) and uploads it as the stream\'s poster, backdrop or logo. (POST /api/streams/:id/art/:kind on the panel)',
    service: 'panel',
    idempotent: true,
    aliases: { id: 'streamId' },
    input: z.strictObject({
      streamId: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/),
      kind: z.enum(['poster', 'backdrop', 'logo']),
      file: z.string().min(2).max(4096).refine(isAbsolute, 'an absolute path').refine((p) => ART_TYPES[extname(p).toLowerCase()] !== undefined, 'an image file: .png .jpg .jpeg .webp or .gif')
    }),
    async run (ctx, a) {
      const file = a.file as string
      const info = await stat(file).catch(() => null)
      if (!info?.isFile()) throw new ToolFailure(`no such file: ${file}`)
      if (info.size > ART_MAX_BYTES) throw new ToolFailure(`${file} is ${info.size} bytes: art is at most 10 MiB`)
      const bytes = await readFile(file)
      const r = await backendOf(ctx, 'panel').call('POST', `/api/streams/${encodeURIComponent(a.streamId as string)}/art/${a.kind as string}`, { raw: { bytes, type: ART_TYPES[extname(file).toLowerCase()]! } })
      if (r.status !== 200) throw failureFrom('panel', r.status, r.body)
      return { data: r.body as Record<string, unknown> }
    }
  }
}

/** Enrolls a publisher; its secret key is written to a 0600 file here, never returned (spec 2). */
function addPublisher (t: RouteTables): ToolDef {
  const base = routeTool(t, { name: 'panel_add_publisher', service: 'panel', route: 'POST /api/publishers', klass: 'W', title: 'Enroll a publisher' })
  return {
    ...base,
    description: 'Enroll a publishing site (a broadcaster or library). Its secret key is written to a 0600 file on this machine (stateDir/publishers/<name>.key) and never returned: install it on the site as PUBLISHER_KEY. (POST /api/publishers on the panel)',
    async run (ctx, a) {
      const out = await base.run(ctx, a)
      const { secretKey, ...rest } = out.data as Record<string, unknown>
      if (typeof secretKey !== 'string') return { data: rest }
      const dir = join(ctx.stateDir, 'publishers')
      await mkdir(dir, { recursive: true, mode: 0o700 })
      const path = join(dir, `${String(rest.name)}.key`)
      await writeFile(path, `${secretKey}\n`, { mode: 0o600 })
      return { data: { ...rest, secretKeyFile: path, note: 'the secret key is in secretKeyFile only; set it as PUBLISHER_KEY (with PUBLISHER_NAME) on the site' } }
    }
  }
}

/** Rewrites the category tag on every stream record (rename: one tag; merge: several into one). */
function retag (name: 'panel_rename_category' | 'panel_merge_categories', klass: 'W' | 'D', title: string): ToolDef {
  const Cat = z.string().min(1).max(100)
  const input = name === 'panel_rename_category' ? z.strictObject({ from: Cat, to: Cat }) : z.strictObject({ from: z.array(Cat).min(1).max(50), into: Cat })
  const pairs = (a: Record<string, unknown>): { from: string[]; to: string } => (name === 'panel_rename_category' ? { from: [a.from as string], to: a.to as string } : { from: a.from as string[], to: a.into as string })
  return {
    name,
    group: 'panel',
    klass,
    title,
    description: `${title}. Every matching record is edited (PATCH /api/streams/:id); the category registry is left as is.`,
    service: 'panel',
    idempotent: true,
    input,
    output: z.object({ changed: z.array(z.string()) }),
    describe: (a) => { const p = pairs(a); return `rewrite category ${p.from.join(', ')} → ${p.to} on every stream record` },
    async run (ctx, a) {
      const { from, to } = pairs(a)
      const lower = new Set(from.map((f) => f.toLowerCase()))
      const { streams } = StreamsReply.parse(await callJson(ctx, 'panel', 'GET', '/api/streams'))
      const changed: string[] = []
      for (const s of streams) {
        const cats = s.category ?? []
        if (!cats.some((c) => lower.has(c.toLowerCase()))) continue
        const next = [...new Set(cats.map((c) => (lower.has(c.toLowerCase()) ? to : c)))]
        await callJson(ctx, 'panel', 'PATCH', `/api/streams/${encodeURIComponent(s.id)}`, { category: next })
        changed.push(s.id)
      }
      return { data: { changed } }
    }
  }
}

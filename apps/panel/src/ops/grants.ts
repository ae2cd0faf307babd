import { z } from 'zod'
import type { PanelCore } from '../context.js'
import { PanelError } from '../errors.js'
import { parseStreamId, parseUsername } from './ids.js'
import { allUsers } from './user-scan.js'
import { dueGrants, entitlementOf, loadLineup } from './entitlements.js'
import { reconcileUsers } from './reconcile.js'
import { StreamId } from '@arus/catalog'

/**
 * Manual grants: wrapped[streamId] = crypto_box_seal(streamKey, user.pub), materialized without
 * the password. Package and auto-granted channels reach users through grant groups instead
 * (reconcile.ts); a manual grant is sealed into the user's own record even when a package also
 * covers it, so taking the package away never touches it.
 */

/** A manual grant: sealed now (an active account), and recorded as manual so package edits never take it away. */
export async function grant (ctx: PanelCore, username: string, streamId: string): Promise<{ changed: boolean }> {
  parseUsername(username)
  const id = parseStreamId(streamId)
  if (!(await ctx.catalog.getStream(id))) throw PanelError.notFound(`stream "${id}"`)
  const key = await ctx.registries.streamKeys.get(id)
  if (!key) throw new PanelError('PANEL_NO_STREAM_KEY', `stream "${id}" has no key on this panel`)
  const user = await ctx.catalog.getUser(username)
  if (!user) throw PanelError.notFound(`user "${username}"`)
  const newManual = await ctx.registries.entitlements.update((users) => {
    const cur = entitlementOf(users, username, user)
    if (cur.manual.includes(id)) { users[username] = cur; return false }
    users[username] = { ...cur, manual: [...cur.manual, id].sort() }
    return true
  })
  const report = await reconcileUsers(ctx, [username], { quiet: true })
  const changed = newManual || report.written > 0
  if (changed) ctx.activity.record({ event: 'grant.added', username, streamId: id }, 'grant added')
  return { changed }
}

/**
 * Removes a manual grant. When a package or an auto-granting source still covers the id, the
 * user keeps (or gets re-sealed) the grant in the same request, and the reply says why.
 */
export async function revoke (ctx: PanelCore, username: string, streamId: string): Promise<RevokeReply> {
  parseUsername(username)
  const id = parseStreamId(streamId)
  const user = await ctx.catalog.getUser(username)
  if (!user) throw PanelError.notFound(`user "${username}"`)
  const wasManual = await ctx.registries.entitlements.update((users) => {
    const cur = entitlementOf(users, username, user)
    users[username] = { ...cur, manual: cur.manual.filter((m) => m !== id) }
    return cur.manual.includes(id)
  })
  const lineup = await loadLineup(ctx)
  const entitlements = await ctx.registries.entitlements.all()
  const coveredBy = (dueGrants(entitlementOf(entitlements, username, user), lineup).get(id) ?? []).filter((w) => w !== 'manual')
  const report = await reconcileUsers(ctx, [username], { lineup })
  const changed = wasManual || report.written > 0
  if (changed) ctx.activity.record({ event: 'grant.removed', username, streamId: id }, 'grant removed')
  return { changed, stillGranted: coveredBy.length > 0, coveredBy }
}

/**
 * A stream's key changed (a register carried a new one, already in the private registry):
 * every group holding it gets the new entry (a stale group rotates first), and every manual
 * holder's grant is sealed again, so existing grants keep working. Resolves the user records
 * written. Documented in docs/panel.md.
 */
export async function resealStream (ctx: PanelCore, streamId: string): Promise<number> {
  const holders: string[] = []
  for await (const { username, record } of allUsers(ctx)) if (Object.hasOwn(record.wrapped, streamId)) holders.push(username)
  return (await reconcileUsers(ctx, holders, { resealed: [streamId] })).written
}

// --- schemas of these operations: the HTTP routes' request and reply, the CLI, the docs ---

export const GrantBody = z.strictObject({ streamId: StreamId })
export const ChangedReply = z.object({ changed: z.boolean() })
export const RevokeReply = z.object({
  changed: z.boolean(),
  stillGranted: z.boolean().describe('A package or an auto-granting source still covers the id: the user keeps it'),
  coveredBy: z.array(z.string()).describe("What still covers it: 'package:<name>' or 'auto'")
})
export type RevokeReply = z.infer<typeof RevokeReply>

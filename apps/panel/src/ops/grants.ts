import { z } from 'zod'
import { fromHex, sealGrant } from '@arus/crypto'
import type { PanelCore } from '../context.js'
import { PanelError } from '../errors.js'
import { parseStreamId, parseUsername } from './ids.js'
import { allUsers } from './user-scan.js'
import { modify } from './users.js'
import { StreamId } from '@arus/catalog'

/** Grants: wrapped[streamId] = crypto_box_seal(streamKey, user.pub), materialized without the password. */

export async function grant (ctx: PanelCore, username: string, streamId: string): Promise<{ changed: boolean }> {
  parseUsername(username)
  const id = parseStreamId(streamId)
  if (!(await ctx.catalog.getStream(id))) throw PanelError.notFound(`stream "${id}"`)
  const key = await ctx.registries.streamKeys.get(id)
  if (!key) throw new PanelError('PANEL_NO_STREAM_KEY', `stream "${id}" has no key on this panel`)
  let changed = false
  await modify(ctx, username, (u) => {
    if (Object.hasOwn(u.wrapped, id)) return u
    changed = true
    return { ...u, wrapped: { ...u.wrapped, [id]: sealGrant(fromHex(key, 32), fromHex(u.pub, 32)) } }
  })
  if (changed) ctx.activity.record({ event: 'grant.added', username, streamId: id }, 'grant added')
  return { changed }
}

export async function revoke (ctx: PanelCore, username: string, streamId: string): Promise<{ changed: boolean }> {
  const id = parseStreamId(streamId)
  let changed = false
  await modify(ctx, username, (u) => {
    if (!Object.hasOwn(u.wrapped, id)) return u
    changed = true
    const { [id]: _gone, ...wrapped } = u.wrapped
    return { ...u, wrapped }
  })
  if (changed) ctx.activity.record({ event: 'grant.removed', username, streamId: id }, 'grant removed')
  return { changed }
}

/**
 * A stream's key changed (a register carried a new one): re-seal it for every holder so
 * existing grants keep working. Documented in docs/panel.md.
 */
export async function resealStream (ctx: PanelCore, streamId: string, keyHex: string): Promise<number> {
  let n = 0
  for await (const { username, record } of allUsers(ctx)) {
    if (!Object.hasOwn(record.wrapped, streamId)) continue
    await ctx.catalog.updateUser(username, (u) => {
      if (!u || !Object.hasOwn(u.wrapped, streamId)) return undefined
      n++
      return { ...u, wrapped: { ...u.wrapped, [streamId]: sealGrant(fromHex(keyHex, 32), fromHex(u.pub, 32)) } }
    })
  }
  return n
}

// --- schemas of these operations: the HTTP routes' request and reply, the CLI, the docs ---

export const GrantBody = z.strictObject({ streamId: StreamId })
export const ChangedReply = z.object({ changed: z.boolean() })

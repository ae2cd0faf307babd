import { deriveLoginKeysV2, deriveUserOprfKey, fromHex, openGrant, openGrants, openSecret, oprf, toHex } from '@arus/crypto'
import type { GroupRecord, UserRecord } from '@arus/catalog'
import type { PanelCore } from '../src/context.js'
import type { AdminApi } from './http-helpers.js'

// Grant-group tests (issue 43) open what the catalog holds the way a viewer does: the panel side
// can evaluate the OPRF itself (it holds the per-user key), so a test reaches the user's X25519
// secret from the password without the RPC, then opens grants with @arus/crypto's openGrants.

export const stats = (a: AdminApi) => { const s = a.opened.ctx.catalog.stats(); return { length: s.length, byteLength: s.byteLength } }

/** The user's X25519 secret, from its password (what a viewer's login unseals). */
export async function userSecret (ctx: PanelCore, username: string, password: string): Promise<Uint8Array> {
  const user = (await ctx.catalog.getUser(username))!
  const output = oprf.evaluate(deriveUserOprfKey(ctx.identity.oprfSeed, username), new TextEncoder().encode(password))
  const keys = await deriveLoginKeysV2(output, fromHex(user.salt, 16), user.argon)
  return openSecret(keys.wrapKey, user.encPriv)
}

/** The group records `user` names, read from the catalog. */
export async function groupRecords (ctx: PanelCore, user: UserRecord): Promise<Record<string, GroupRecord | null>> {
  return Object.fromEntries(await Promise.all(Object.keys(user.groups ?? {}).map(async (id) => [id, await ctx.catalog.getGroup(id)] as const)))
}

/** Every stream key the user opens now (id → hex), as a viewer's login would. */
export async function openedKeys (ctx: PanelCore, username: string, password: string): Promise<Record<string, string>> {
  const user = (await ctx.catalog.getUser(username))!
  const keys = openGrants(user, await groupRecords(ctx, user), await userSecret(ctx, username, password))
  return Object.fromEntries([...keys].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, k]) => [id, toHex(k)]))
}

/** The group key the user holds for `groupId` (what a viewer could keep after it leaves). */
export async function heldGroupKey (ctx: PanelCore, username: string, password: string, groupId: string): Promise<{ gen: number; key: Uint8Array }> {
  const user = (await ctx.catalog.getUser(username))!
  const held = user.groups![groupId]!
  return { gen: held.gen, key: openGrant(held.key, fromHex(user.pub, 32), await userSecret(ctx, username, password)) }
}

/** The keys written to the catalog since block `from` (history order), and how many appends wrote them. */
export async function writtenSince (ctx: PanelCore, from: number): Promise<string[]> {
  const out: string[] = []
  for await (const entry of ctx.catalog.bee.createHistoryStream({ gte: from })) out.push(`${entry.type === 'del' ? 'del ' : ''}${entry.key as string}`)
  return out
}

/** The stream keys of the panel (id → hex). */
export const streamKeys = (ctx: PanelCore) => ctx.registries.streamKeys.all()

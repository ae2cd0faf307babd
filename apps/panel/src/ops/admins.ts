import { blake2b256, computeVerifier, constantTimeEqual, fromHex, newSalt, toHex } from '@arus/crypto'
import type { PanelContext } from '../context.js'
import { PanelError } from '../errors.js'
import type { AdminEntry } from '../registries.js'

/** Admin accounts for the HTTP API: name + Argon2id verifier (spec 1 "Authentication" 1). Registry-only. */

const NAME = /^[A-Za-z0-9_.@-]{1,64}$/
type AdminCtx = Pick<PanelContext, 'registries' | 'settings' | 'log'>

/** Argon2id's input: the password's BLAKE2b-256 (computeVerifier takes a fixed 32-byte secret). */
const passwordInput = (password: string) => blake2b256(new TextEncoder().encode(password))

export interface AdminView { name: string; tokenVersion: number; createdAt: number }

function parseName (name: string): string {
  if (!NAME.test(name)) throw PanelError.invalid(`invalid admin name "${String(name).slice(0, 64)}": 1-64 letters, digits, _ . - @`)
  return name
}

async function newVerifier (ctx: AdminCtx, password: string): Promise<Pick<AdminEntry, 'salt' | 'verifier' | 'argon'>> {
  if (password.length < 1 || password.length > 1024) throw PanelError.invalid('password must be 1-1024 characters')
  const salt = newSalt()
  const argon = { ...ctx.settings.argon }
  const verifier = await computeVerifier(passwordInput(password), salt, argon)
  return { salt: toHex(salt), verifier: toHex(verifier), argon }
}

export async function addAdmin (ctx: AdminCtx, input: { name: string; password: string }): Promise<AdminView> {
  const name = parseName(input.name)
  const v = await newVerifier(ctx, input.password)
  const entry: AdminEntry = { ...v, tokenVersion: 0, createdAt: Date.now() }
  await ctx.registries.admins.update((map) => {
    if (Object.hasOwn(map, name)) throw PanelError.exists(`admin "${name}"`)
    map[name] = entry
  })
  ctx.log.info({ event: 'admin.added', admin: name }, 'admin added')
  return { name, tokenVersion: 0, createdAt: entry.createdAt }
}

export async function listAdmins (ctx: AdminCtx): Promise<AdminView[]> {
  const map = await ctx.registries.admins.all()
  return Object.keys(map).sort().map((name) => ({ name, tokenVersion: map[name]!.tokenVersion, createdAt: map[name]!.createdAt }))
}

export async function removeAdmin (ctx: AdminCtx, name: string): Promise<void> {
  await ctx.registries.admins.update((map) => {
    if (!Object.hasOwn(map, name)) throw PanelError.notFound(`admin "${name}"`)
    delete map[name]
  })
  ctx.log.info({ event: 'admin.removed', admin: name }, 'admin removed')
}

/** Rotates an admin's password and bumps tokenVersion, ending that admin's sessions. */
export async function setAdminPassword (ctx: AdminCtx, name: string, password: string): Promise<AdminView> {
  const v = await newVerifier(ctx, password)
  return ctx.registries.admins.update((map) => {
    const a = Object.hasOwn(map, name) ? map[name] : undefined
    if (!a) throw PanelError.notFound(`admin "${name}"`)
    map[name] = { ...a, ...v, tokenVersion: a.tokenVersion + 1 }
    return { name, tokenVersion: a.tokenVersion + 1, createdAt: a.createdAt }
  })
}

/** Checks an admin password against its recorded cost (used by the HTTP login). */
export async function checkAdminPassword (ctx: AdminCtx, name: string, password: string): Promise<AdminEntry | null> {
  const a = await ctx.registries.admins.get(name)
  if (!a) return null
  const got = await computeVerifier(passwordInput(password), fromHex(a.salt, 16), a.argon)
  return constantTimeEqual(got, fromHex(a.verifier, 32)) ? a : null
}

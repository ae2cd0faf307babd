import { blake2b256, computeVerifier, constantTimeEqual, fromHex, newSalt, toHex } from '@arus/crypto'
import { recordActivity } from '../activity.js'
import type { PanelContext } from '../context.js'
import { PanelError } from '../errors.js'
import type { AdminEntry } from '../registries.js'

/** Admin accounts for the HTTP API: name + Argon2id verifier (spec 1 "Authentication" 1). Registry-only. */

const NAME = /^[A-Za-z0-9_.@-]{1,64}$/
type AdminCtx = Pick<PanelContext, 'registries' | 'settings' | 'log' | 'activity'>

/** Argon2id's input: the password's BLAKE2b-256 (computeVerifier takes a fixed 32-byte secret). */
const passwordInput = (password: string) => blake2b256(new TextEncoder().encode(password))

export interface AdminView { name: string; tokenVersion: number; createdAt: number }

/**
 * Everything a verification of `password` against admin `name` needs: the Argon2id input,
 * the recorded salt, cost and verifier, and the tokenVersion a session would carry. The HTTP
 * login hands it to the kit's verify worker; {@link checkAdminPassword} verifies it in-process.
 */
export interface AdminVerifierInput {
  input: Uint8Array
  salt: Uint8Array
  cost: { opslimit: number; memlimit: number }
  verifier: Uint8Array
  tokenVersion: number
}

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
  recordActivity(ctx, { event: 'admin.added', admin: name }, 'admin added')
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
  recordActivity(ctx, { event: 'admin.removed', admin: name }, 'admin removed')
}

/** Rotates an admin's password and bumps tokenVersion, ending that admin's sessions. */
export async function setAdminPassword (ctx: AdminCtx, name: string, password: string): Promise<AdminView> {
  const v = await newVerifier(ctx, password)
  const view = await ctx.registries.admins.update((map) => {
    const a = Object.hasOwn(map, name) ? map[name] : undefined
    if (!a) throw PanelError.notFound(`admin "${name}"`)
    map[name] = { ...a, ...v, tokenVersion: a.tokenVersion + 1 }
    return { name, tokenVersion: a.tokenVersion + 1, createdAt: a.createdAt }
  })
  recordActivity(ctx, { event: 'admin.password', admin: name }, 'admin password rotated')
  return view
}

/** The verification input of `password` for admin `name`, or null when there is no such admin. */
export async function adminVerifierInput (ctx: Pick<PanelContext, 'registries'>, name: string, password: string): Promise<AdminVerifierInput | null> {
  const a = await ctx.registries.admins.get(name)
  if (!a) return null
  return { input: passwordInput(password), salt: fromHex(a.salt, 16), cost: a.argon, verifier: fromHex(a.verifier, 32), tokenVersion: a.tokenVersion }
}

/** The admin's tokenVersion (sessions carry it), or null when the admin does not exist. */
export async function adminTokenVersion (ctx: Pick<PanelContext, 'registries'>, name: string): Promise<number | null> {
  return (await ctx.registries.admins.get(name))?.tokenVersion ?? null
}

/** Checks an admin password against its recorded cost, in-process (the HTTP login uses the kit's worker instead). */
export async function checkAdminPassword (ctx: Pick<PanelContext, 'registries'>, name: string, password: string): Promise<AdminEntry | null> {
  const v = await adminVerifierInput(ctx, name, password)
  if (!v) return null
  const got = await computeVerifier(v.input, v.salt, v.cost)
  return constantTimeEqual(got, v.verifier) ? await ctx.registries.admins.get(name) : null
}

import { z } from 'zod'
import { blake2b256, computeVerifier, fromHex, newSalt, toHex, type ArgonCost } from '@arus/crypto'
import { readJsonFile, withFileLock, writeJsonAtomic, type Logger } from '@arus/service'
import { BroadcasterError } from '../errors.js'

/**
 * Control admins (spec 2 "Authentication" 1): name + Argon2id verifier in
 * private/admins.json (0600), re-read at every use so the CLI can edit it beside a running
 * daemon. One operation per function, called by the CLI and the control API.
 */

/** admins.json format version. */
export const ADMINS_FILE_VERSION = 1

const NAME = /^[A-Za-z0-9_.@-]{1,64}$/
const hex = (bytes: number) => z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`))

export const AdminEntry = z.object({
  salt: hex(16),
  verifier: hex(32),
  argon: z.object({ opslimit: z.number().int(), memlimit: z.number().int() }),
  tokenVersion: z.number().int().min(0),
  createdAt: z.number()
})
export type AdminEntry = z.infer<typeof AdminEntry>
const AdminsFile = z.object({ v: z.literal(ADMINS_FILE_VERSION), admins: z.record(z.string(), AdminEntry) })

export interface AdminView { name: string; tokenVersion: number; createdAt: number }

export interface AdminCtx { adminsPath: string; argon: ArgonCost; log: Logger }

/** Argon2id's input: the password's BLAKE2b-256 (the verifier takes a fixed 32-byte secret). */
export const passwordInput = (password: string) => blake2b256(new TextEncoder().encode(password))

async function readAll (ctx: AdminCtx): Promise<Record<string, AdminEntry>> {
  const file = await readJsonFile(ctx.adminsPath, AdminsFile, { missing: 'null' })
  return { ...(file?.admins ?? {}) }
}

function update<R> (ctx: AdminCtx, fn: (map: Record<string, AdminEntry>) => R): Promise<R> {
  return withFileLock(ctx.adminsPath, async () => {
    const map = await readAll(ctx)
    const result = fn(map)
    await writeJsonAtomic(ctx.adminsPath, { v: ADMINS_FILE_VERSION, admins: map }, { mode: 0o600 })
    return result
  })
}

function parseName (name: string): string {
  if (!NAME.test(name)) throw BroadcasterError.invalid(`invalid admin name "${String(name).slice(0, 64)}": 1-64 letters, digits, _ . - @`)
  return name
}

async function newVerifier (ctx: AdminCtx, password: string): Promise<Pick<AdminEntry, 'salt' | 'verifier' | 'argon'>> {
  if (typeof password !== 'string' || password.length < 1 || password.length > 1024) throw BroadcasterError.invalid('password must be 1-1024 characters')
  const salt = newSalt()
  const argon = { ...ctx.argon }
  return { salt: toHex(salt), verifier: toHex(await computeVerifier(passwordInput(password), salt, argon)), argon }
}

export async function addAdmin (ctx: AdminCtx, input: { name: string; password: string }): Promise<AdminView> {
  const name = parseName(input.name)
  const entry: AdminEntry = { ...(await newVerifier(ctx, input.password)), tokenVersion: 0, createdAt: Date.now() }
  await update(ctx, (map) => {
    if (Object.hasOwn(map, name)) throw BroadcasterError.exists(`admin "${name}"`)
    map[name] = entry
  })
  ctx.log.info({ event: 'admin.added', admin: name }, 'admin added')
  return { name, tokenVersion: 0, createdAt: entry.createdAt }
}

export async function listAdmins (ctx: AdminCtx): Promise<AdminView[]> {
  const map = await readAll(ctx)
  return Object.keys(map).sort().map((name) => ({ name, tokenVersion: map[name]!.tokenVersion, createdAt: map[name]!.createdAt }))
}

export async function removeAdmin (ctx: AdminCtx, name: string): Promise<void> {
  await update(ctx, (map) => {
    if (!Object.hasOwn(map, name)) throw BroadcasterError.notFound(`admin "${name}"`)
    delete map[name]
  })
  ctx.log.info({ event: 'admin.removed', admin: name }, 'admin removed')
}

/** Rotates an admin's password and bumps tokenVersion, which ends that admin's sessions. */
export async function setAdminPassword (ctx: AdminCtx, name: string, password: string): Promise<AdminView> {
  const v = await newVerifier(ctx, password)
  const view = await update(ctx, (map) => {
    const a = Object.hasOwn(map, name) ? map[name] : undefined
    if (!a) throw BroadcasterError.notFound(`admin "${name}"`)
    map[name] = { ...a, ...v, tokenVersion: a.tokenVersion + 1 }
    return { name, tokenVersion: a.tokenVersion + 1, createdAt: a.createdAt }
  })
  ctx.log.info({ event: 'admin.password', admin: name }, 'admin password rotated')
  return view
}

/** The admin's tokenVersion, or null when it does not exist (the auth gate's check). */
export async function adminTokenVersion (ctx: AdminCtx, name: string): Promise<number | null> {
  const map = await readAll(ctx)
  return Object.hasOwn(map, name) ? map[name]!.tokenVersion : null
}

/** What the login's verify worker checks for `name`, or null for an unknown admin. */
export async function adminVerifierInput (ctx: AdminCtx, name: string, password: string) {
  const map = await readAll(ctx)
  const a = Object.hasOwn(map, name) ? map[name]! : null
  if (!a) return null
  return { input: passwordInput(password), salt: fromHex(a.salt, 16), cost: a.argon, verifier: fromHex(a.verifier, 32), tokenVersion: a.tokenVersion }
}

import { statSync } from 'node:fs'
import { z } from 'zod'
import { blake2b256, computeVerifier, fromHex, newSalt, toHex, type ArgonCost } from '@arus/crypto'
import { ServiceError } from '../errors.js'
import { withFileLock } from '../file-lock.js'
import { readJsonFile, writeJsonAtomic } from '../files.js'
import { keyedRecord, ownValue } from '../keyed.js'
import type { AdminVerifier } from '../http/login.js'
import type { Activity } from './activity.js'

/**
 * Admin accounts of a daemon's HTTP API (spec 1 "Authentication" 1, spec 2 "Authentication"
 * 1): name + Argon2id verifier with its recorded cost, and a tokenVersion that a password
 * rotation bumps (ending that admin's sessions). One private JSON file (0600), re-read at
 * every use and rewritten only when it changes, so the CLI can edit it beside a running
 * daemon. Every change is audited to the daemon's activity sink.
 */

/** private/admins.json format version (fixtures of v1 from the panel and the broadcaster: test/fixtures). */
export const ADMINS_FILE_VERSION = 1

const hex = (bytes: number) => z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`))

export const AdminName = z.string().regex(/^(?!__proto__$)[A-Za-z0-9_.@-]{1,64}$/, '1-64 letters, digits, _ . - @ (not __proto__)').describe('Admin name')
export const AdminPassword = z.string().min(1).max(1024).describe('Admin password (1-1024 characters)')

/** add-admin / POST /api/admins. */
export const AddAdminInput = z.strictObject({ name: AdminName, password: AdminPassword })
/** set-admin-password / POST /api/admins/:name/password. */
export const SetAdminPasswordInput = z.strictObject({ password: AdminPassword })
export const AdminNameParams = z.strictObject({ name: AdminName })
/** What every admin operation answers with (never the verifier or salt). */
export const AdminView = z.object({ name: z.string(), tokenVersion: z.number().int(), createdAt: z.number() })
export type AdminView = z.infer<typeof AdminView>
/** list-admins / GET /api/admins. */
export const AdminList = z.object({ admins: z.array(AdminView) })
/** The reply of every delete route of every daemon: the id that is gone. */
export const DeletedReply = z.object({ deleted: z.string() })

export const AdminEntry = z.object({
  salt: hex(16),
  verifier: hex(32),
  argon: z.object({ opslimit: z.number().int(), memlimit: z.number().int() }),
  tokenVersion: z.number().int().min(0),
  createdAt: z.number()
})
export type AdminEntry = z.infer<typeof AdminEntry>
const AdminsFile = z.object({ v: z.literal(ADMINS_FILE_VERSION), admins: z.record(z.string(), AdminEntry) })

/** Collaborators of {@link createAdminRegistry}. */
export interface AdminRegistryComponents {
  /** Where every change is audited (logged and kept in the activity ring). */
  activity: Activity
  /** Called before a removal (the daemon takes its automatic config snapshot there). */
  beforeDestructive?: (reason: string) => Promise<unknown>
}

/** Options of {@link createAdminRegistry}. */
export interface AdminRegistryInit {
  /** The admins file (DATA_DIR/private/admins.json). */
  path: string
  /** Argon2id cost of new verifiers (ARGON2_OPS, ARGON2_MEM_KIB); existing admins keep theirs until rotation. */
  argon: ArgonCost
  now?: () => number
}

/** The admin accounts of one daemon. */
export interface AdminRegistry {
  readonly argon: ArgonCost
  list(): Promise<AdminView[]>
  count(): Promise<number>
  add(input: z.input<typeof AddAdminInput>): Promise<AdminView>
  remove(name: string): Promise<void>
  /** Rotates the password and bumps tokenVersion, which ends that admin's sessions. */
  setPassword(name: string, password: string): Promise<AdminView>
  /** The admin's tokenVersion, or null when it does not exist (the auth gate's check). */
  currentTokenVersion(name: string): Promise<number | null>
  /** What the login's verify worker checks for `name`, or null for an unknown admin. */
  verifierInput(name: string, password: string): Promise<AdminVerifier | null>
  /** Entries of the file (snapshots only: they hold verifiers). */
  entries(): Promise<Record<string, AdminEntry>>
}

/** Argon2id's input: the password's BLAKE2b-256 (the verifier takes a fixed 32-byte secret). */
export const adminPasswordInput = (password: string): Uint8Array => blake2b256(new TextEncoder().encode(password))

function parse<T> (schema: z.ZodType<T>, value: unknown, field: string): T {
  const r = schema.safeParse(value)
  if (!r.success) throw ServiceError.validationFailed(`invalid ${field}: ${r.error.issues[0]?.message ?? 'invalid'}`, [field])
  return r.data
}

const view = (name: string, a: AdminEntry): AdminView => ({ name, tokenVersion: a.tokenVersion, createdAt: a.createdAt })

export function createAdminRegistry (components: AdminRegistryComponents, init: AdminRegistryInit): AdminRegistry {
  const { activity } = components
  const now = init.now ?? Date.now
  const read = async (): Promise<Record<string, AdminEntry>> => keyedRecord((await readJsonFile(init.path, AdminsFile, { missing: 'null' }))?.admins)
  // The auth gate asks on every request: the parsed file is kept while the file is the same
  // one (every writer, this process or the CLI, renames a new file into place: a new inode).
  let gateCache: { stamp: string; map: Record<string, AdminEntry> } | null = null
  const stampOf = (): string | null => {
    try {
      const st = statSync(init.path)
      return `${st.ino}:${st.size}:${st.mtimeMs}`
    } catch {
      return null
    }
  }
  const readForGate = async (): Promise<Record<string, AdminEntry>> => {
    const stamp = stampOf()
    if (stamp !== null && gateCache?.stamp === stamp) return gateCache.map
    const map = await read()
    gateCache = stamp !== null && stamp === stampOf() ? { stamp, map } : null
    return map
  }
  const find = (map: Record<string, AdminEntry>, name: string) => ownValue(map, name)
  /** Read-modify-write under the file lock; the file is rewritten only when the map changed. */
  const update = <R>(fn: (map: Record<string, AdminEntry>) => R): Promise<R> => withFileLock(init.path, async () => {
    const map = await read()
    const before = JSON.stringify(map)
    const result = fn(map)
    if (JSON.stringify(map) !== before) await writeJsonAtomic(init.path, { v: ADMINS_FILE_VERSION, admins: map }, { mode: 0o600 })
    return result
  })
  const newVerifier = async (password: string): Promise<Pick<AdminEntry, 'salt' | 'verifier' | 'argon'>> => {
    const salt = newSalt()
    const argon = { ...init.argon }
    return { salt: toHex(salt), verifier: toHex(await computeVerifier(adminPasswordInput(parse(AdminPassword, password, 'password')), salt, argon)), argon }
  }

  return {
    argon: init.argon,
    async list () {
      const map = await read()
      return Object.keys(map).sort().map((name) => view(name, map[name]!))
    },
    async count () { return Object.keys(await read()).length },
    async add (input) {
      const { name, password } = parse(AddAdminInput, input, 'admin')
      const entry: AdminEntry = { ...(await newVerifier(password)), tokenVersion: 0, createdAt: now() }
      await update((map) => {
        if (find(map, name)) throw ServiceError.adminExists(name)
        map[name] = entry
      })
      activity.record({ event: 'admin.added', admin: name }, 'admin added')
      return view(name, entry)
    },
    async remove (name) {
      if (!find(await read(), name)) throw ServiceError.adminNotFound(name)
      await components.beforeDestructive?.(`remove admin ${name}`)
      await update((map) => {
        if (!find(map, name)) throw ServiceError.adminNotFound(name)
        delete map[name]
      })
      activity.record({ event: 'admin.removed', admin: name }, 'admin removed')
    },
    async setPassword (name, password) {
      const v = await newVerifier(password)
      const result = await update((map) => {
        const a = find(map, name)
        if (!a) throw ServiceError.adminNotFound(name)
        map[name] = { ...a, ...v, tokenVersion: a.tokenVersion + 1 }
        return view(name, map[name])
      })
      activity.record({ event: 'admin.password', admin: name }, 'admin password rotated')
      return result
    },
    async currentTokenVersion (name) { return find(await readForGate(), name)?.tokenVersion ?? null },
    async verifierInput (name, password) {
      const a = find(await read(), name)
      if (!a) return null
      return { input: adminPasswordInput(password), salt: fromHex(a.salt, 16), cost: a.argon, verifier: fromHex(a.verifier, 32), tokenVersion: a.tokenVersion }
    },
    entries: read
  }
}

import { z } from 'zod'
import { readJsonFile, withFileLock, writeJsonAtomic } from '@arus/service'
import type { PanelPaths } from './paths.js'

/**
 * Panel-private registries: stream keys, publisher enrollments and admin accounts.
 * Each is a small JSON file re-read on every use, so registry-only CLI commands can
 * edit them beside a running panel and the panel sees the change at its next use.
 */

const hex = (bytes: number) => z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`))

export const PublisherEntry = z.object({
  publicKey: hex(32),
  scopes: z.array(z.string().min(1).max(128)).max(256),
  status: z.enum(['active', 'revoked']),
  createdAt: z.number()
})
export type PublisherEntry = z.infer<typeof PublisherEntry>

export const AdminEntry = z.object({
  salt: hex(16),
  verifier: hex(32),
  argon: z.object({ opslimit: z.number().int(), memlimit: z.number().int() }),
  tokenVersion: z.number().int().min(0),
  createdAt: z.number()
})
export type AdminEntry = z.infer<typeof AdminEntry>

const StreamKeysFile = z.object({ v: z.literal(1), keys: z.record(z.string(), hex(32)) })
const PublishersFile = z.object({ v: z.literal(1), publishers: z.record(z.string(), PublisherEntry) })
const AdminsFile = z.object({ v: z.literal(1), admins: z.record(z.string(), AdminEntry) })

/** A map persisted as one private JSON file; `update` is read-modify-write under a lock. */
export interface Registry<T> {
  all(): Promise<Record<string, T>>
  get(name: string): Promise<T | null>
  update<R>(fn: (map: Record<string, T>) => R): Promise<R>
}

function createRegistry<T, F extends { v: 1 }> (path: string, schema: z.ZodType<F>, field: keyof F & string): Registry<T> {
  const read = async (): Promise<Record<string, T>> => {
    const file = await readJsonFile(path, schema, { missing: 'null' })
    return file ? { ...(file[field] as Record<string, T>) } : {}
  }
  return {
    all: read,
    async get (name) {
      const map = await read()
      return Object.hasOwn(map, name) ? map[name] ?? null : null
    },
    update (fn) {
      return withFileLock(path, async () => {
        const map = await read()
        const before = JSON.stringify(map)
        const result = fn(map)
        if (JSON.stringify(map) !== before) await writeJsonAtomic(path, { v: 1, [field]: map }, { mode: 0o600 })
        return result
      })
    }
  }
}

export interface PanelRegistries {
  streamKeys: Registry<string>
  publishers: Registry<PublisherEntry>
  admins: Registry<AdminEntry>
}

export function openRegistries (paths: PanelPaths): PanelRegistries {
  return {
    streamKeys: createRegistry<string, z.infer<typeof StreamKeysFile>>(paths.streamKeys, StreamKeysFile, 'keys'),
    publishers: createRegistry<PublisherEntry, z.infer<typeof PublishersFile>>(paths.publishers, PublishersFile, 'publishers'),
    admins: createRegistry<AdminEntry, z.infer<typeof AdminsFile>>(paths.admins, AdminsFile, 'admins')
  }
}

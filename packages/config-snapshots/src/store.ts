import { constants } from 'node:fs'
import { lstat, open, readdir, unlink } from 'node:fs/promises'
import { ServiceError, ensurePrivateDir, writeJsonAtomic } from '@arus/service'
import { ConfigError, fieldIssues } from './errors.js'
import { idOfFileName, snapshotPath } from './ids.js'
import { SnapshotFile, type SnapshotMeta } from './schemas.js'

/**
 * The snapshot directory: one JSON file per snapshot (`<id>.json`, 0600) in a 0700
 * directory, written atomically by the kit (temp file, fsync, rename, fsync the directory).
 * Reads never follow a symlink and never echo content in errors.
 */

const osCode = (err: unknown): string | undefined => (err as { code?: unknown })?.code as string | undefined

export async function writeSnapshot (dir: string, file: SnapshotFile): Promise<void> {
  await ensurePrivateDir(dir)
  await writeJsonAtomic(snapshotPath(dir, file.id), file, { mode: 0o600 })
}

/** Reads and validates snapshot `id`; a malformed id is refused before any path is built. */
export async function readSnapshot (dir: string, id: string): Promise<SnapshotFile> {
  const path = snapshotPath(dir, id)
  let text: string
  try {
    // O_NOFOLLOW: a symlink planted in the directory is not followed out of it.
    const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW)
    try {
      if (!(await handle.stat()).isFile()) throw ConfigError.snapshotNotFound(id, true)
      text = await handle.readFile('utf8')
    } finally {
      await handle.close()
    }
  } catch (err) {
    if (err instanceof ConfigError) throw err
    const code = osCode(err)
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR') throw ConfigError.snapshotNotFound(id, true)
    throw ServiceError.fileIo('read', path, err)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw ConfigError.snapshotCorrupt(id, 'not valid JSON')
  }
  const r = SnapshotFile.safeParse(json)
  if (!r.success) {
    throw ConfigError.snapshotCorrupt(id, 'does not match the snapshot format', fieldIssues(r.error.issues))
  }
  if (r.data.id !== id) throw ConfigError.snapshotCorrupt(id, 'its id does not match its file name')
  return r.data
}

/** Ids of the snapshot files in `dir`, newest first (ids sort by time); [] when `dir` is missing. */
export async function listSnapshotIds (dir: string): Promise<string[]> {
  let entries
  try {
    entries = await readdir(dir, { withFileTypes: true })
  } catch (err) {
    if (osCode(err) === 'ENOENT') return []
    throw ServiceError.fileIo('list', dir, err)
  }
  const ids: string[] = []
  for (const e of entries) {
    const id = e.isFile() ? idOfFileName(e.name) : undefined
    if (id !== undefined) ids.push(id)
  }
  return ids.sort().reverse()
}

/** Deletes snapshot `id`; CONFIG_SNAPSHOT_NOT_FOUND when there is no such regular file. */
export async function deleteSnapshot (dir: string, id: string): Promise<void> {
  const path = snapshotPath(dir, id)
  try {
    if (!(await lstat(path)).isFile()) throw ConfigError.snapshotNotFound(id, true)
    await unlink(path)
  } catch (err) {
    if (err instanceof ConfigError) throw err
    if (osCode(err) === 'ENOENT') throw ConfigError.snapshotNotFound(id, true)
    throw ServiceError.fileIo('delete', path, err)
  }
}

/** Deletes all but the newest `keep` snapshots; returns the ids removed. */
export async function pruneSnapshots (dir: string, keep: number): Promise<string[]> {
  const old = (await listSnapshotIds(dir)).slice(keep)
  for (const id of old) {
    try {
      await unlink(snapshotPath(dir, id))
    } catch (err) {
      if (osCode(err) !== 'ENOENT') throw ServiceError.fileIo('delete', snapshotPath(dir, id), err)
    }
  }
  return old
}

/** Bytes of a section's JSON and, for an array or object payload, its entry count. */
export function sectionSize (name: string, data: unknown): SnapshotMeta['sections'][number] {
  const bytes = Buffer.byteLength(JSON.stringify(data) ?? '')
  if (Array.isArray(data)) return { name, bytes, items: data.length }
  if (data !== null && typeof data === 'object') return { name, bytes, items: Object.keys(data).length }
  return { name, bytes }
}

/** The metadata of a snapshot file (never its contents). */
export function snapshotMeta (file: SnapshotFile): SnapshotMeta {
  return {
    id: file.id,
    service: file.service,
    createdAt: file.createdAt,
    ...(file.note === undefined ? {} : { note: file.note }),
    reason: file.reason,
    sections: Object.entries(file.sections).map(([name, data]) => sectionSize(name, data))
  }
}

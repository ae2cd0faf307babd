import { lstat, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { ServiceError } from '@arus/service'
import { BACKUP_EXTENSIONS, BACKUP_FRESH_HOURS, BACKUP_STALE_HOURS, BACKUPS_LIST_MAX } from './constants.js'
import type { BackupsReply } from './schemas.js'

/**
 * The backups index (GET /api/backups): lists the archives in the read-only BACKUP_DIR
 * mount. Nothing is written there and nothing is run: backups are made and restored on the
 * host, so the reply suggests the shell commands instead (canRunHere is always false).
 */

const NOTE = 'Backups are made and restored on the host (its backup job, or the tool server\'s server_backup and server_restore); ' +
  'this daemon only reads BACKUP_DIR and never runs them. Paths are as this daemon sees the mount; on the host they may differ. ' +
  `Freshness: fresh up to ${BACKUP_FRESH_HOURS} h old, stale up to ${BACKUP_STALE_HOURS} h, old beyond.`

export type Freshness = BackupsReply['archives'][number]['freshness']

export function freshness (ageHours: number): Freshness {
  if (ageHours <= BACKUP_FRESH_HOURS) return 'fresh'
  if (ageHours <= BACKUP_STALE_HOURS) return 'stale'
  return 'old'
}

const isArchiveName = (name: string): boolean =>
  !name.startsWith('.') && !/[\u0000-\u001f\u007f/\\]/.test(name) && BACKUP_EXTENSIONS.some((ext) => name.endsWith(ext)) // eslint-disable-line no-control-regex

/** A word quoted for a POSIX shell. */
const sh = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`

/** tar's decompression flag for an archive name. */
function tarFlag (name: string): string {
  if (/\.(tar\.gz|tgz)$/.test(name)) return ' -z'
  if (/\.(tar\.zst|tzst)$/.test(name)) return ' --zstd'
  if (/\.(tar\.xz|txz)$/.test(name)) return ' -J'
  if (/\.(tar\.bz2|tbz2)$/.test(name)) return ' -j'
  return ''
}

function commands (dir: string, newest: string | undefined): string[] {
  const list = `ls -lt ${sh(dir)}`
  if (newest === undefined) return [list]
  const archive = sh(join(dir, newest))
  const flag = tarFlag(newest)
  return [
    list,
    `tar${flag} -tvf ${archive} | head -n 20`,
    `mkdir -p /tmp/arus-restore && tar${flag} -xf ${archive} -C /tmp/arus-restore`,
    '# then stop the service, move its data volume aside, copy /tmp/arus-restore in its place and start it (or use the tool server\'s server_restore)'
  ]
}

/** Lists the archives of `dir` (regular files only, symlinks skipped), newest first. */
export async function listBackups (dir: string | undefined, now: number): Promise<BackupsReply> {
  if (dir === undefined) {
    return { available: false, archives: [], commands: [], note: 'BACKUP_DIR is not set: no backup folder is mounted. ' + NOTE, canRunHere: false }
  }
  let entries
  try {
    entries = await readdir(dir, { withFileTypes: true })
  } catch (err) {
    const code = (err as { code?: unknown }).code
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return { available: false, dir, archives: [], commands: [], note: 'BACKUP_DIR does not exist or is not a directory. ' + NOTE, canRunHere: false }
    }
    throw ServiceError.fileIo('list', dir, err)
  }
  const found: Array<{ name: string; bytes: number; mtimeMs: number }> = []
  for (const e of entries) {
    // Dirent.isFile() is false for a symlink: links are never followed, in or out of the dir.
    if (!e.isFile() || !isArchiveName(e.name)) continue
    try {
      const st = await lstat(join(dir, e.name))
      if (st.isFile()) found.push({ name: e.name, bytes: st.size, mtimeMs: st.mtimeMs })
    } catch {
      // removed between readdir and lstat: not listed
    }
  }
  found.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.name < b.name ? -1 : 1))
  const archives = found.slice(0, BACKUPS_LIST_MAX).map((a, i) => {
    const exact = Math.max(0, (now - a.mtimeMs) / 3_600_000)
    const ageHours = Math.round(exact * 10) / 10
    return { name: a.name, bytes: a.bytes, modifiedAt: new Date(a.mtimeMs).toISOString(), ageHours, freshness: freshness(exact), newest: i === 0 }
  })
  const head = archives.length === 0 ? 'No archives found. ' : ''
  return { available: true, dir, archives, commands: commands(dir, archives[0]?.name), note: head + NOTE, canRunHere: false }
}

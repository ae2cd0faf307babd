import { randomBytes } from 'node:crypto'
import { join, relative, resolve, isAbsolute } from 'node:path'
import { SNAPSHOT_ID_PATTERN } from './constants.js'
import { ConfigError } from './errors.js'

/**
 * Snapshot ids and their files. An id is UTC time to the millisecond plus 6 random hex
 * digits, so ids sort by age and name a file without escaping. An id from outside is
 * checked against {@link SNAPSHOT_ID_PATTERN} before any path is built from it.
 */

export function isSnapshotId (id: unknown): id is string {
  return typeof id === 'string' && SNAPSHOT_ID_PATTERN.test(id)
}

/** `20261124T101500123Z-3fa9c2` for epoch ms `at`. */
export function newSnapshotId (at: number): string {
  return `${new Date(at).toISOString().replace(/[-:.]/g, '')}-${randomBytes(3).toString('hex')}`
}

/** Epoch ms encoded in a well-formed id. */
export function snapshotIdTime (id: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z/.exec(id)
  if (!m) return Number.NaN
  const [, y, mo, d, h, mi, s, ms] = m.map(Number) as number[]
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!, ms!)
}

/** The file name of a snapshot. */
export const snapshotFileName = (id: string): string => `${id}.json`

/** The id of a snapshot file name, or undefined for any other file. */
export function idOfFileName (name: string): string | undefined {
  if (!name.endsWith('.json')) return undefined
  const id = name.slice(0, -'.json'.length)
  return isSnapshotId(id) ? id : undefined
}

/**
 * The path of snapshot `id` inside `dir`: the id must be well-formed, and the resolved
 * path must be a direct child of `dir` (a second guard besides the pattern).
 */
export function snapshotPath (dir: string, id: unknown): string {
  if (!isSnapshotId(id)) throw ConfigError.snapshotNotFound('', false)
  const root = resolve(dir)
  const path = resolve(join(root, snapshotFileName(id)))
  const rel = relative(root, path)
  if (rel === '' || isAbsolute(rel) || rel.startsWith('..') || rel.includes('/') || rel.includes('\\')) throw ConfigError.snapshotNotFound('', false)
  return path
}

import { createHmac, randomBytes } from 'node:crypto'
import { rm } from 'node:fs/promises'
import { z } from 'zod'
import { readJsonFile, writeJsonAtomic } from '@arus/service'
import { ANALYTICS_SALT_VERSION, VIEWER_HASH_BYTES } from './constants.js'

/**
 * The per-UTC-day viewer salt (private/analytics-salt.json, 0600): 32 random bytes made at the
 * day's first session, valid for that day only and deleted at day rollover, so a day's
 * viewer hashes cannot be tested against a username once the day is over.
 */

const SaltFile = z.object({
  v: z.literal(ANALYTICS_SALT_VERSION),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  salt: z.string().regex(/^[0-9a-f]{64}$/)
})

export interface DaySalt { date: string; salt: Buffer }

export function newDaySalt (date: string): DaySalt {
  return { date, salt: randomBytes(32) }
}

/** The stored salt, or null when there is none or it is unreadable (a new one is made then). */
export async function readDaySalt (path: string): Promise<DaySalt | null> {
  const file = await readJsonFile(path, SaltFile, { missing: 'null' }).catch(() => null)
  return file === null ? null : { date: file.date, salt: Buffer.from(file.salt, 'hex') }
}

export async function writeDaySalt (path: string, s: DaySalt): Promise<void> {
  await writeJsonAtomic(path, { v: ANALYTICS_SALT_VERSION, date: s.date, salt: s.salt.toString('hex') })
}

export async function removeDaySalt (path: string): Promise<void> {
  await rm(path, { force: true })
}

/** The viewer's salted hash: HMAC-SHA256(day salt, username), first 8 bytes in hex. */
export function viewerHash (salt: Uint8Array, username: string): string {
  return createHmac('sha256', salt).update(username, 'utf8').digest().subarray(0, VIEWER_HASH_BYTES).toString('hex')
}

import { z } from 'zod'
import { KEY_SCHEDULE_CURRENT, randomBytes, toHex } from '@arus/crypto'
import type { PanelCore } from '../context.js'
import { setPassword } from './users.js'
import { allUsers } from './user-scan.js'

/**
 * Login key schedules of the accounts (docs/architecture.md "Login", "Migration"). Schedule 1
 * records (from before issue 40) move to schedule 2 at their owner's next login with an SDK
 * that re-keys; these operations tell an admin how many are left and reset the rest.
 */

/** How many users hold each schedule; the schedule-1 names, first `LIST_MAX` in name order. */
export interface KeyScheduleStatus {
  current: number
  users: number
  v1: number
  v2: number
  v1Users: string[]
  v1UsersTruncated: boolean
}

const LIST_MAX = 1000

export async function keyScheduleStatus (ctx: PanelCore): Promise<KeyScheduleStatus> {
  const out: KeyScheduleStatus = { current: KEY_SCHEDULE_CURRENT, users: 0, v1: 0, v2: 0, v1Users: [], v1UsersTruncated: false }
  for await (const { username, record } of allUsers(ctx)) {
    out.users++
    if ((record.keyVersion ?? 1) >= 2) { out.v2++; continue }
    out.v1++
    if (out.v1Users.length < LIST_MAX) out.v1Users.push(username)
    else out.v1UsersTruncated = true
  }
  return out
}

/**
 * Forces a password reset on every user still on schedule 1: each gets a random password that
 * nobody learns (at schedule 2, grants re-sealed, every session ended), so it cannot log in
 * until an admin or reseller sets a new one. The old record stays in the catalog's history
 * (append-only): this stops new logins under it, it does not unpublish it.
 */
export async function resetLegacyUsers (ctx: PanelCore): Promise<{ reset: string[] }> {
  const names: string[] = []
  for await (const { username, record } of allUsers(ctx)) if (record.keyVersion === undefined) names.push(username)
  const reset: string[] = []
  for (const username of names) {
    await setPassword(ctx, username, toHex(randomBytes(32)))
    reset.push(username)
  }
  ctx.activity.record({ event: 'user.legacy-reset', count: reset.length }, 'schedule-1 users reset')
  return { reset }
}

// --- schemas of these operations: the HTTP routes' request and reply, the CLI, the docs ---

export const KeyScheduleReply = z.object({
  current: z.number().describe('The key schedule the panel writes (2)'),
  users: z.number().describe('Accounts in all'),
  v1: z.number().describe('Accounts still on schedule 1 (their keys come from the OPRF output without Argon2id)'),
  v2: z.number().describe('Accounts on schedule 2'),
  v1Users: z.array(z.string()).describe('Names of schedule-1 accounts (at most 1000, in name order)'),
  v1UsersTruncated: z.boolean()
})
export const ResetLegacyBody = z.strictObject({ confirm: z.literal(true).describe('Must be true: every schedule-1 account loses its password') })
export const ResetLegacyReply = z.object({ reset: z.array(z.string()).describe('Accounts reset (they need a new password to log in)') })

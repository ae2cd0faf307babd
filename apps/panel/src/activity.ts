import { AsyncLocalStorage } from 'node:async_hooks'
import type { Logger } from '@arus/service'

/**
 * The in-memory activity ring (spec 1 "Events" 3, "Limits": last 200 entries, returned by
 * GET /api/observability, cleared by a restart). Operations record what they did through
 * {@link recordActivity}, which also logs the event. Only whitelisted, non-secret fields
 * enter the ring: never keys, passwords or tokens, and (once reports exist) never the user
 * behind a problem report.
 */

/** Entries kept (spec 1 "Limits": activity ring). */
export const ACTIVITY_RING_SIZE = 200

export type ActivityValue = string | number | boolean | null | string[]

/** One entry: when, what, which admin did it (null: CLI or the panel itself), and context. */
export interface ActivityEntry {
  at: number
  event: string
  actor: string | null
  [field: string]: ActivityValue
}

export interface ActivityRing {
  push(entry: ActivityEntry): void
  /** Newest first. */
  list(): ActivityEntry[]
}

/** Fields an entry may carry besides at/event/actor. */
const FIELDS = new Set(['streamId', 'username', 'admin', 'publisher', 'status', 'scopes', 'kind', 'slug', 'redirect', 'fields', 'count', 'maxDevices'])

export function createActivityRing (size = ACTIVITY_RING_SIZE): ActivityRing {
  const entries: ActivityEntry[] = []
  return {
    push (entry) {
      entries.push(entry)
      if (entries.length > size) entries.splice(0, entries.length - size)
    },
    list: () => entries.slice().reverse()
  }
}

const actors = new AsyncLocalStorage<string>()

/** Runs `fn` with `actor` (an admin name) recorded on every entry it produces. */
export function withActor<T> (actor: string | undefined, fn: () => T): T {
  return actor === undefined ? fn() : actors.run(actor, fn)
}

/** What {@link recordActivity} needs from a context: a logger and, in the daemon, the ring. */
export interface ActivityCtx { log: Logger; activity?: ActivityRing | undefined }

/** Logs `{ event, ...fields }` at info and, when the context has a ring, records the whitelisted fields. */
export function recordActivity (ctx: ActivityCtx, fields: { event: string } & Record<string, ActivityValue | undefined>, msg: string): void {
  const actor = actors.getStore() ?? null
  ctx.log.info({ ...fields, ...(actor === null ? {} : { actor }) }, msg)
  if (!ctx.activity) return
  const entry: ActivityEntry = { at: Date.now(), event: fields.event, actor }
  for (const [k, v] of Object.entries(fields)) if (FIELDS.has(k) && v !== undefined) entry[k] = v
  ctx.activity.push(entry)
}

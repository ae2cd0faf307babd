import { AsyncLocalStorage } from 'node:async_hooks'
import type { Logger } from 'pino'

/**
 * The audit sink every daemon's operations report to: each event is logged at info and
 * recorded in a bounded in-memory ring (spec 1 "Events" 3, "Limits": the last 200 entries,
 * cleared by a restart; GET /api/observability serves it on the panel). Only whitelisted,
 * non-secret fields enter the ring: never keys, passwords or tokens.
 */

/** Entries kept (spec 1 "Limits": activity ring). */
export const ACTIVITY_RING_SIZE = 200

export type ActivityValue = string | number | boolean | null | string[]

/** One entry: when, what, which admin did it (null: the CLI or the daemon itself), and context. */
export interface ActivityEntry {
  at: number
  event: string
  actor: string | null
  [field: string]: ActivityValue
}

/** Fields of an event: `event` plus context values (undefined ones are dropped). */
export type ActivityFields = { event: string } & Record<string, ActivityValue | undefined>

/** The audit sink: {@link createActivity}. */
export interface Activity {
  /** Logs `{ event, ...fields, actor }` at info and records the whitelisted fields in the ring. */
  record(fields: ActivityFields, msg: string): void
  /** The ring, newest first. */
  list(): ActivityEntry[]
}

/** Options of {@link createActivity}. */
export interface ActivityInit {
  /** Ring size (default {@link ACTIVITY_RING_SIZE}). */
  size?: number
  /** Fields an entry may carry besides at/event/actor, on top of {@link ACTIVITY_BASE_FIELDS}. */
  fields?: Iterable<string>
  /** Clock in epoch ms (default Date.now). */
  now?: () => number
}

/** Fields every daemon's entries may carry. */
export const ACTIVITY_BASE_FIELDS: readonly string[] = ['admin', 'status', 'kind', 'count', 'fields', 'reason', 'snapshot']

const actors = new AsyncLocalStorage<string>()

/** Runs `fn` with `actor` (an admin name) recorded on every entry it produces. */
export function withActor<T> (actor: string | undefined, fn: () => T): T {
  return actor === undefined ? fn() : actors.run(actor, fn)
}

export function createActivity (log: Logger, init: ActivityInit = {}): Activity {
  const size = init.size ?? ACTIVITY_RING_SIZE
  const allowed = new Set([...ACTIVITY_BASE_FIELDS, ...(init.fields ?? [])])
  const now = init.now ?? Date.now
  const entries: ActivityEntry[] = []
  return {
    record (fields, msg) {
      const actor = actors.getStore() ?? null
      log.info({ ...fields, ...(actor === null ? {} : { actor }) }, msg)
      const entry: ActivityEntry = { at: now(), event: fields.event, actor }
      for (const [k, v] of Object.entries(fields)) if (allowed.has(k) && v !== undefined) entry[k] = v
      entries.push(entry)
      if (entries.length > size) entries.splice(0, entries.length - size)
    },
    list: () => entries.slice().reverse()
  }
}

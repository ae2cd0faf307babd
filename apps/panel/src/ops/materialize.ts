import type { GroupRecord, UserRecord } from '@arus/catalog'
import { fromHex, sealGrant } from '@arus/crypto'
import { ownValue } from '@arus/service'
import type { Entitlement } from '../registries.js'
import { dueGroups, type Lineup } from './entitlements.js'

/**
 * The user side of a reconcile (issue 43; spec 1 "User record"), pure: the record a user must
 * hold — `groups` for each group it is due (sealed group key of the current generation) and
 * `wrapped` for its manual grants only. A sealed value is kept while it still holds (same
 * generation, same `pub`, the stream key not re-keyed), so an unchanged user is written never.
 */

/** A group's current key, as the users' records must hold it. */
export interface GroupKeyState { gen: number; key: string }

export interface MaterializeInit {
  /** Stream ids whose key changed: their manual grants are sealed again. */
  resealed?: ReadonlySet<string>
}

/**
 * `edited` (the stored record `stored`, with the operation's own change applied) with its
 * grants made to match `ent`. A record whose `pub` changed (a new password) or a new record
 * (`stored` null) has every grant sealed afresh. Disabled: no groups, no grants at all.
 */
export function materializeUser (stored: UserRecord | null, edited: UserRecord, ent: Entitlement, lineup: Lineup, states: ReadonlyMap<string, GroupKeyState>, init: MaterializeInit = {}): UserRecord {
  const fresh = stored === null || stored.pub !== edited.pub
  const pub = fromHex(edited.pub, 32)
  const groups: NonNullable<UserRecord['groups']> = {}
  for (const id of dueGroups(ent, lineup, edited.status)) {
    const state = states.get(id)
    if (state === undefined) continue
    const held = fresh ? undefined : ownValue(edited.groups ?? {}, id)
    groups[id] = held !== undefined && held.gen === state.gen ? held : { gen: state.gen, key: sealGrant(fromHex(state.key, 32), pub) }
  }
  const wrapped: Record<string, string> = {}
  if (edited.status === 'active') {
    for (const id of [...new Set(ent.manual)].sort()) {
      const key = ownValue(lineup.keys, id)
      if (key === undefined) continue
      const held = fresh || init.resealed?.has(id) === true ? undefined : ownValue(edited.wrapped, id)
      wrapped[id] = held ?? sealGrant(fromHex(key, 32), pub)
    }
  }
  return { ...edited, wrapped, groups }
}

/**
 * The stream ids a record grants, as a viewer opens them: its own `wrapped` grants and the
 * channels of each held group whose record is of the held generation (`records`: the group
 * records by id; a missing one grants nothing). A record from before groups grants `wrapped`.
 */
export function grantedIds (record: Pick<UserRecord, 'wrapped' | 'groups'>, records: ReadonlyMap<string, GroupRecord | null>): Set<string> {
  const ids = new Set(Object.keys(record.wrapped))
  for (const [id, held] of Object.entries(record.groups ?? {})) {
    const group = records.get(id)
    if (group === null || group === undefined || group.gen !== held.gen) continue
    for (const streamId of Object.keys(group.keys)) ids.add(streamId)
  }
  return ids
}

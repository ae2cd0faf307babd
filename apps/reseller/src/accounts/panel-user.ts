import { isArusError } from '@arus/service'
import type { ResellerCore } from '../core.js'
import { maybeApplied } from '../panel/client.js'
import type { PanelUserState } from './model.js'

/** The panel calls behind accounts (spec 1 users endpoints), one place for their paths. */

export const userPath = (name: string, rest = '') => `/api/users/${encodeURIComponent(name)}${rest}`

const isNotFound = (err: unknown) => isArusError(err) && err.status === 404

/** The panel user, or null on the panel's 404. */
export async function findPanelUser (core: ResellerCore, name: string): Promise<PanelUserState | null> {
  try {
    return await core.panel.call<PanelUserState>('GET', userPath(name))
  } catch (err) {
    if (isNotFound(err)) return null
    throw err
  }
}

/** Deletes the panel user; its 404 counts as done. */
export async function deletePanelUser (core: ResellerCore, name: string): Promise<void> {
  try {
    await core.panel.call('DELETE', userPath(name))
  } catch (err) {
    if (!isNotFound(err)) throw err
  }
}

export function setPanelStatus (core: ResellerCore, name: string, status: 'active' | 'disabled'): Promise<PanelUserState> {
  return core.panel.call<PanelUserState>('POST', userPath(name, '/status'), { status })
}

/** How a panel creation ended: `userMayExist` says whether a failed one may have left a user behind. */
export type CreateOutcome = { ok: true } | { ok: false; err: unknown; userMayExist: boolean }

/**
 * Creates the panel user with its device limit, packages and grants. A failure after the
 * create deletes the user again (best effort); the outcome says whether one may be left.
 */
export async function createPanelUser (core: ResellerCore, name: string, password: string, opts: { maxDevices: number; packages?: string[] | undefined; grants?: string[] | undefined }): Promise<CreateOutcome> {
  try {
    await core.panel.call('POST', '/api/users', { username: name, password })
  } catch (err) {
    return { ok: false, err, userMayExist: maybeApplied(err) }
  }
  try {
    await core.panel.call('POST', userPath(name, '/max-devices'), { maxDevices: opts.maxDevices })
    if (opts.packages !== undefined) await core.panel.call('POST', userPath(name, '/packages'), { packages: opts.packages })
    for (const streamId of opts.grants ?? []) await core.panel.call('POST', userPath(name, '/grants'), { streamId })
    return { ok: true }
  } catch (err) {
    try {
      await deletePanelUser(core, name)
      return { ok: false, err, userMayExist: false }
    } catch (cleanup) {
      core.log.warn({ event: 'account.cleanup', account: name, err: (cleanup as Error).message }, 'could not remove a half-made panel user; the next reconcile removes it')
      return { ok: false, err, userMayExist: true }
    }
  }
}

import type { ResellerCore } from '../core.js'

/**
 * A principal's effective status and limits, read up its chain of parents: what the account
 * operations need of a principal (accounts/create.ts) and the principal views show. Reads
 * only, importing no operation: the accounts take a principal's limits from here, never from
 * principals/ops.ts, which itself walks the accounts (a with-accounts suspension).
 */

/** Disabled itself or through an ancestor. */
export function effectiveStatus (core: ResellerCore, name: string): 'active' | 'disabled' {
  return core.principals.chain(name).some(([, r]) => r.status === 'disabled') ? 'disabled' : 'active'
}

/** maxDevicesLimit: the first set value up the chain, else MAX_DEVICES_LIMIT_DEFAULT. */
export function effectiveMaxDevices (core: ResellerCore, name: string): { value: number; inherited: boolean } {
  const chain = core.principals.chain(name)
  const own = chain[0]?.[1].maxDevicesLimit ?? null
  if (own !== null) return { value: own, inherited: false }
  const up = chain.slice(1).find(([, r]) => r.maxDevicesLimit !== null)
  return { value: up?.[1].maxDevicesLimit ?? core.settings.maxDevicesLimitDefault, inherited: true }
}

export function trialCap (core: ResellerCore, name: string): { value: number; inherited: boolean } {
  const own = core.principals.get(name)?.trialDailyCap ?? null
  return own === null ? { value: core.settings.trialDailyCapDefault, inherited: true } : { value: own, inherited: false }
}

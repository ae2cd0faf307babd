import type { ArgonCost } from '@arus/crypto'
import type { Activity, Logger } from '@arus/service'
import type { AccountStore } from './accounts/store.js'
import type { Ledger } from './ledger/ledger.js'
import type { PanelClient } from './panel/client.js'
import type { PrincipalStore } from './principals/store.js'
import type { KeyedLock } from './keyed-lock.js'

/** The settings operations read (from the environment). */
export interface ResellerSettings {
  daysPerMonth: number
  creditsPerMonth: number
  trialHours: number
  trialDailyCapDefault: number
  maxDevicesLimitDefault: number
  reconcileRepair: boolean
  argon: ArgonCost
}

/** What every operation works on: the one place HTTP, the CLI and the tool server reach state through. */
export interface ResellerCore {
  settings: ResellerSettings
  principals: PrincipalStore
  accounts: AccountStore
  ledger: Ledger
  panel: PanelClient
  log: Logger
  activity: Activity
  /** Serializes each account's operations (and their settles). */
  accountLock: KeyedLock
  now(): number
}

export const DAY_MS = 86_400_000

/** Start of the current UTC day (trial caps count per UTC day). */
export function utcDayStart (now: number): number {
  return now - (now % DAY_MS)
}

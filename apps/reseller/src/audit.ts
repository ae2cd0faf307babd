import { createActivity, type Activity, type Logger } from '@arus/service'

/** The reseller's audit sink (the kit's activity ring and log): who did what to which principal or account. */
export const RESELLER_ACTIVITY_FIELDS = ['principal', 'account', 'role', 'amount', 'months', 'status', 'mode', 'refunded'] as const

export function resellerActivity (log: Logger): Activity {
  return createActivity(log, { fields: RESELLER_ACTIVITY_FIELDS })
}

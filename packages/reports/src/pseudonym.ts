import { createHmac } from 'node:crypto'

/**
 * The reporter pseudonym (spec 1 "Problem report"): the first 16 hex characters of
 * HMAC-SHA256 keyed with the panel's 32-byte salt over userId, a separator, deviceId. The
 * separator is a NUL, which neither a username nor a hex device id can hold, so no two
 * (user, device) pairs share an input.
 */
export function pseudonym (salt: Uint8Array, userId: string, deviceId: string): string {
  return createHmac('sha256', salt).update(`${userId}\u0000${deviceId}`, 'utf8').digest('hex').slice(0, 16)
}

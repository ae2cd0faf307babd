import { fromHex, verifyToken } from '@arus/crypto'
import { SdkError } from './errors.js'

/**
 * Session helpers (spec 3 "Session helpers"). The session token is signed by the panel key over
 * its exact payload bytes (docs/panel.md "Session token"): `{ v, typ: 'session', sub, dev, tv,
 * iat, exp }`.
 */
export interface SessionPayload {
  v: number
  typ: 'session'
  /** Username. */
  sub: string
  /** Device id (hex Ed25519 public key). */
  dev: string
  /** The user's tokenVersion when the token was issued. */
  tv: number
  iat: number
  exp: number
}

/** The replicated database sessionLive() reads: anything with the catalog reader's getUser. */
export interface SessionDb {
  getUser(username: string): Promise<{
    status: string
    tokenVersion: number
    devices: ReadonlyArray<{ deviceId: string; tokenVersion: number; status: string }>
  } | null>
}

/**
 * Offline check: verifies the panel signature and expiry. Returns the payload, or null for any
 * token that is malformed, forged, expired or not a session token. `now` (epoch ms) for tests.
 */
export function checkSession (panelPubKey: string | Uint8Array, token: string, opts: { now?: number } = {}): SessionPayload | null {
  let key: Uint8Array
  try {
    key = typeof panelPubKey === 'string' ? fromHex(panelPubKey, 32) : panelPubKey
  } catch {
    throw SdkError.invalidArgument('panelPubKey', 'expected 64 hex characters or 32 bytes')
  }
  if (!(key instanceof Uint8Array) || key.byteLength !== 32) throw SdkError.invalidArgument('panelPubKey', 'expected 32 bytes')
  let payload: Record<string, unknown>
  try {
    payload = verifyToken(token, key, opts.now === undefined ? {} : { now: opts.now })
  } catch {
    return null
  }
  if (payload.typ !== 'session' || typeof payload.sub !== 'string' || typeof payload.dev !== 'string' ||
    typeof payload.tv !== 'number' || typeof payload.iat !== 'number') return null
  return payload as unknown as SessionPayload
}

/**
 * Online check: the device is still enrolled under the account with a matching tokenVersion, and
 * the account is active (a revoked device, a bumped tokenVersion or a disabled account fail).
 */
export async function sessionLive (db: SessionDb, payload: SessionPayload): Promise<boolean> {
  const user = await db.getUser(payload.sub)
  if (user === null || user.status !== 'active' || user.tokenVersion !== payload.tv) return false
  return user.devices.some((d) => d.deviceId === payload.dev && d.tokenVersion === payload.tv && d.status === 'active')
}

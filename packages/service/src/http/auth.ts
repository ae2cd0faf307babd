import type { FastifyInstance, FastifyRequest } from 'fastify'
import { signToken, verifyToken } from '@arus/crypto'
import { ServiceError } from '../errors.js'
import { VerifiedTokens } from './token-cache.js'

/**
 * Admin sessions (spec 1 "Authentication" 1, 4; spec 2 "Authentication" 1): a token signed
 * with the service's Ed25519 key over `{ typ: 'admin', sub, tv, iat, exp }` (exp/iat in epoch
 * ms), sent as `Authorization: Bearer <token>`. The gate checks signature, expiry, type and
 * that `tv` still equals the admin's tokenVersion, so a password rotation (which bumps it)
 * or removing the admin ends every session at once.
 */

/** The `typ` of admin tokens; viewer session tokens signed by the same key carry another. */
export const ADMIN_TOKEN_TYPE = 'admin'

/** Who a request is authenticated as. */
export interface AdminSession {
  name: string
  tokenVersion: number
  expiresAt: number
}

/** Key pair that signs and verifies admin tokens (secretKey: 64 bytes, libsodium layout). */
export interface TokenKeys {
  publicKey: Uint8Array
  secretKey: Uint8Array
}

/** What the gate needs. */
export interface AuthGateInit {
  publicKey: Uint8Array
  /** The admin's current tokenVersion, or null when the admin no longer exists. */
  currentTokenVersion(name: string): Promise<number | null>
  now?: () => number
  /** Tokens whose signature was checked before (token-cache.ts); none: every request checks it. */
  verified?: VerifiedTokens<Record<string, unknown>>
}

/** Signs a session token for `name` valid for `ttlMs`. */
export function issueAdminToken (keys: TokenKeys, name: string, tokenVersion: number, ttlMs: number, now = Date.now()): { token: string; expiresAt: number } {
  const expiresAt = now + ttlMs
  const token = signToken({ typ: ADMIN_TOKEN_TYPE, sub: name, tv: tokenVersion, iat: now, exp: expiresAt }, keys.secretKey)
  return { token, expiresAt }
}

const SESSIONS = new WeakMap<FastifyRequest, AdminSession>()

/** The admin a request was authenticated as (undefined on routes without auth). */
export function requestAdmin (req: FastifyRequest): AdminSession | undefined {
  return SESSIONS.get(req)
}

function bearer (header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header
  const m = /^Bearer\s+(\S+)\s*$/i.exec(value ?? '')
  if (!m) throw ServiceError.unauthorized('missing bearer token (Authorization: Bearer <token from POST /api/login>)')
  return m[1]!
}

/** Verifies a bearer header; throws SERVICE_UNAUTHORIZED (401) or SERVICE_FORBIDDEN (403). */
export async function authenticate (authorization: string | string[] | undefined, init: AuthGateInit): Promise<AdminSession> {
  const token = bearer(authorization)
  const now = (init.now ?? Date.now)()
  let payload = init.verified?.get(token)
  if (payload !== undefined && !(now < (payload.exp as number))) {
    init.verified?.delete(token)
    throw ServiceError.unauthorized('session expired; log in again')
  }
  if (payload === undefined) {
    try {
      payload = verifyToken(token, init.publicKey, { now })
    } catch (err) {
      const code = (err as { code?: string }).code
      throw ServiceError.unauthorized(code === 'CRYPTO_TOKEN_EXPIRED' ? 'session expired; log in again' : 'invalid token')
    }
    init.verified?.add(token, payload)
  }
  if (payload.typ !== ADMIN_TOKEN_TYPE) throw ServiceError.forbidden('not an admin token')
  const { sub, tv, exp } = payload
  if (typeof sub !== 'string' || typeof tv !== 'number') throw ServiceError.unauthorized('invalid token')
  const current = await init.currentTokenVersion(sub)
  if (current === null || current !== tv) throw ServiceError.unauthorized('session ended (password rotated or admin removed); log in again')
  return { name: sub, tokenVersion: tv, expiresAt: exp as number }
}

/**
 * Whether a route needs a token: its `config.auth`, or — for routes declared without the
 * helper — any path under /api/. Unknown paths (404) and static files are not gated.
 */
function needsAuth (req: FastifyRequest): boolean {
  const auth = (req.routeOptions.config as { auth?: unknown } | undefined)?.auth
  if (typeof auth === 'boolean') return auth
  const url = req.routeOptions.url
  return url !== undefined && url.startsWith('/api/')
}

/** Installs the gate as the first onRequest hook. */
export function installAuthGate (app: FastifyInstance, init: AuthGateInit): void {
  const gate: AuthGateInit = { verified: new VerifiedTokens(), ...init }
  app.addHook('onRequest', async (req) => {
    if (!needsAuth(req)) return
    SESSIONS.set(req, await authenticate(req.headers.authorization, gate))
  })
}

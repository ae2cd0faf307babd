import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { isArusError, ServiceError } from '../errors.js'
import { issueAdminToken, type TokenKeys } from './auth.js'
import type { Lockout } from './lockout.js'
import { route } from './routes.js'
import type { VerifyJob, VerifyWorker } from './verify-worker.js'

/**
 * POST /api/login (spec 1 "Authentication" 1-3). Order of checks, each answered at once:
 * lockout (429 with retryAfter) → verification slot (503 while one runs) → one counted attempt
 * → Argon2id in the worker (503 past the budget) → 401 or a token. A busy refusal verifies
 * nothing and is not counted as an attempt.
 */

/** A verifier to check, plus the tokenVersion the issued token will carry. */
export type AdminVerifier = VerifyJob & { tokenVersion: number }

/** Outcome of one login, for metrics and logs. */
export type LoginResult = 'ok' | 'failed' | 'locked' | 'busy' | 'timeout' | 'error'

export interface LoginInit {
  keys: TokenKeys
  sessionTtlMs: number
  /** The verifier of `name` with the Argon2id input derived from `password`; null for an unknown name. */
  verifierInput(name: string, password: string): Promise<AdminVerifier | null>
  lockout: Lockout
  verifier: VerifyWorker
  now: () => number
  onResult(result: LoginResult, name: string, ip: string): void
  /** The address the lockout keys on. */
  clientAddress(req: FastifyRequest): string
  reply?: LoginReplyExtension
}

/** Extra fields of a successful login's reply, declared by `schema` (which extends {@link LoginReply}). */
export interface LoginReplyExtension {
  schema: z.ZodObject
  extra(name: string): Promise<Record<string, unknown>>
}

export const LoginBody = z.strictObject({
  username: z.string().min(1).max(128).describe('Admin name'),
  password: z.string().min(1).max(1024).describe('Admin password')
})

export const LoginReply = z.object({
  token: z.string().describe('Bearer token for the Authorization header'),
  expiresAt: z.number().int().describe('Expiry, epoch milliseconds')
})

const OUTCOME: Record<string, LoginResult> = {
  SERVICE_VERIFY_BUSY: 'busy',
  SERVICE_VERIFY_TIMEOUT: 'timeout'
}

export function loginRoute (app: FastifyInstance, init: LoginInit): void {
  route(app, {
    method: 'POST',
    url: '/api/login',
    auth: false,
    tag: 'auth',
    summary: 'Log in as an admin; returns a session token',
    body: LoginBody,
    response: init.reply?.schema ?? LoginReply
  }, async ({ body }, req) => {
    const ip = init.clientAddress(req)
    const keys = [`name:${body.username}`, `addr:${ip}`]
    const wait = init.lockout.retryAfter(keys)
    if (wait > 0) {
      init.onResult('locked', body.username, ip)
      throw ServiceError.locked(wait)
    }
    let tokenVersion = 0
    let ok: boolean
    try {
      ok = await init.verifier.verify(async () => {
        init.lockout.hit(keys)
        const job = await init.verifierInput(body.username, body.password)
        if (job) tokenVersion = job.tokenVersion
        return job
      })
    } catch (err) {
      init.onResult((isArusError(err) && OUTCOME[err.code]) || 'error', body.username, ip)
      throw err
    }
    if (!ok) {
      init.onResult('failed', body.username, ip)
      throw ServiceError.badCredentials()
    }
    init.lockout.reset(keys)
    init.onResult('ok', body.username, ip)
    const issued = issueAdminToken(init.keys, body.username, tokenVersion, init.sessionTtlMs, init.now())
    return init.reply ? { ...issued, ...(await init.reply.extra(body.username)) } : issued
  })
}

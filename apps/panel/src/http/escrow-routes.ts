import { z } from 'zod'
import { ESCROW_KDF_ALG, ESCROW_KIND, ESCROW_VERSION } from '@arus/crypto'
import {
  AdminPassword, isArusError, requestAdmin, ServiceError, toArusError, withActor, type FastifyInstance, type VerifyWorker
} from '@arus/service'
import type { PanelContext } from '../context.js'
import { PanelError } from '../errors.js'
import { ESCROW_PASSPHRASE_MIN, escrowFilename, sealIdentityEscrow, type SealedEscrow } from '../ops/escrow.js'
import { panelRoute } from './panel-route.js'

/**
 * POST /api/identity/escrow (spec 1 "Health, status, monitoring", "Authentication" 5,
 * "Events" 3, "Limits"): the identity keys sealed under a passphrase, for an admin who
 * re-types their own password. Registered only with ESCROW_EXPORT=1; otherwise the path is
 * an unknown route (404). Order of checks, like the login's: schema → throttle (429) →
 * verification slot (503 while one runs) → one counted attempt → Argon2id in the shared
 * verify worker → 403 or the sealed, self-verified envelope. Every attempt, whatever its
 * outcome, is a `security.escrow` entry in the activity ring; never the password or passphrase.
 */

export const ESCROW_URL = '/api/identity/escrow'

/** Attempts allowed per rolling hour, panel-wide (spec 1 "Limits": escrow route 3 attempts per hour). */
export const ESCROW_MAX_ATTEMPTS = 3
export const ESCROW_WINDOW_MS = 3_600_000

/** The activity event of every attempt (spec 1 "Events" 3: escrow attempts are security events). */
export const ESCROW_EVENT = 'security.escrow'

/** How an attempt ended (the `outcome` field of its activity entry). */
export type EscrowOutcome = 'ok' | 'wrong-password' | 'throttled' | 'invalid' | 'unauthenticated' | 'busy' | 'timeout' | 'error'

export const EscrowBody = z.strictObject({
  password: AdminPassword.describe('The calling admin\'s own password, checked again'),
  passphrase: z.string().min(ESCROW_PASSPHRASE_MIN).max(1024).describe(`Passphrase the identity is sealed under (${ESCROW_PASSPHRASE_MIN}-1024 characters); keep it apart from the file`)
})

/** The v1 envelope of @arus/crypto (`EscrowEnvelope`): what `arus-panel verify-escrow` opens. */
export const EscrowEnvelopeSchema = z.object({
  v: z.literal(ESCROW_VERSION),
  kind: z.literal(ESCROW_KIND),
  fingerprint: z.string(),
  kdf: z.object({ alg: z.literal(ESCROW_KDF_ALG), opslimit: z.number().int(), memlimit: z.number().int(), salt: z.string() }),
  nonce: z.string(),
  ciphertext: z.string()
})

export const EscrowReply = z.object({
  filename: z.string().describe('Suggested file name: arus-panel-escrow-<first 8 hex of the fingerprint>-<UTC date>.json'),
  fingerprint: z.string().describe('The panel public key (hex), also in the envelope'),
  kdf: z.string().describe('Passphrase KDF of the envelope'),
  verified: z.literal(true).describe('The panel opened its own output and checked it before replying'),
  escrow: EscrowEnvelopeSchema.describe('The sealed envelope; save it as JSON and check it with `arus-panel verify-escrow <file>`')
})

/** Refusals answered before the handler runs, recorded by the route's error hook. */
const BEFORE_HANDLER: Partial<Record<string, EscrowOutcome>> = {
  SERVICE_VALIDATION_FAILED: 'invalid',
  SERVICE_PAYLOAD_TOO_LARGE: 'invalid',
  SERVICE_UNSUPPORTED_MEDIA_TYPE: 'invalid',
  SERVICE_UNAUTHORIZED: 'unauthenticated',
  SERVICE_FORBIDDEN: 'unauthenticated'
}

const VERIFY_FAILURE: Partial<Record<string, EscrowOutcome>> = { SERVICE_VERIFY_BUSY: 'busy', SERVICE_VERIFY_TIMEOUT: 'timeout' }

/**
 * The attempts of the last hour: a rolling window (not a fixed one), so no hour ever holds
 * more than {@link ESCROW_MAX_ATTEMPTS} password checks.
 */
function createAttemptWindow (now: () => number) {
  const times: number[] = []
  const prune = (t: number) => { while (times.length > 0 && t - times[0]! >= ESCROW_WINDOW_MS) times.shift() }
  return {
    /** Whole seconds until an attempt is allowed again; 0 when one is allowed now. */
    retryAfter (): number {
      const t = now()
      prune(t)
      return times.length < ESCROW_MAX_ATTEMPTS ? 0 : Math.max(1, Math.ceil((times[0]! + ESCROW_WINDOW_MS - t) / 1000))
    },
    hit (): void { times.push(now()) }
  }
}

export function escrowRoutes (app: FastifyInstance, ctx: PanelContext, verifier: VerifyWorker): void {
  const attempts = createAttemptWindow(() => ctx.now())
  const audit = (outcome: EscrowOutcome, msg: string, retryAfter?: number) =>
    ctx.activity.record({ event: ESCROW_EVENT, outcome, retryAfter }, msg)

  // Schema and auth refusals never reach the handler; they are attempts too. Declared before
  // the route so it applies to it.
  app.addHook('onError', async (req, _reply, err) => {
    if (req.method !== 'POST' || req.routeOptions.url !== ESCROW_URL) return
    const outcome = BEFORE_HANDLER[toArusError(err).code]
    if (outcome !== undefined) withActor(requestAdmin(req)?.name, () => audit(outcome, `identity escrow refused: ${outcome}`))
  })

  panelRoute(app, {
    method: 'POST',
    url: ESCROW_URL,
    tag: 'identity',
    summary: 'Identity escrow: re-checks the caller\'s password, seals the identity keys under the passphrase, verifies and returns the envelope',
    description: 'Exists only with ESCROW_EXPORT=1. 3 attempts per rolling hour, panel-wide (429 PANEL_ESCROW_THROTTLED with retryAfter); a wrong password is 403 PANEL_ESCROW_WRONG_PASSWORD and counts. Every attempt is a security.escrow activity entry.',
    body: EscrowBody,
    response: EscrowReply
  }, async ({ body }, req) => {
    const admin = requestAdmin(req)
    if (admin === undefined) throw ServiceError.unauthorized()
    const wait = attempts.retryAfter()
    if (wait > 0) {
      audit('throttled', 'identity escrow refused: too many attempts', wait)
      throw PanelError.escrowThrottled(wait)
    }
    let ok: boolean
    try {
      // The slot is claimed synchronously, so the check above and this count cannot interleave.
      ok = await verifier.verify(async () => {
        attempts.hit()
        return ctx.admins.verifierInput(admin.name, body.password)
      })
    } catch (err) {
      const outcome = (isArusError(err) && VERIFY_FAILURE[err.code]) || 'error'
      audit(outcome, `identity escrow refused: ${outcome}`)
      throw err
    }
    if (!ok) {
      audit('wrong-password', 'identity escrow refused: wrong password')
      throw new PanelError('PANEL_ESCROW_WRONG_PASSWORD')
    }
    let sealed: SealedEscrow
    try {
      sealed = await sealIdentityEscrow(ctx.identity, body.passphrase)
    } catch (err) {
      audit('error', 'identity escrow failed')
      throw err
    }
    audit('ok', 'identity escrow exported')
    return {
      filename: escrowFilename(sealed.fingerprint, ctx.now()),
      fingerprint: sealed.fingerprint,
      kdf: sealed.kdf,
      verified: sealed.verified,
      escrow: sealed.envelope
    }
  })
}

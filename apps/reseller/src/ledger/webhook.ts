import { createHmac, timingSafeEqual } from 'node:crypto'
import { z } from 'zod'
import type { ResellerCore } from '../core.js'
import { ResellerError } from '../errors.js'
import { PrincipalName } from '../principals/model.js'
import { LedgerLine } from './line.js'

/**
 * The top-up webhook (spec 2 "POST /api/webhooks/credits"): a payment system mints credits for
 * a principal. The body is authenticated by `x-topup-signature`, the hex HMAC-SHA256 of
 * `<x-topup-timestamp>.<raw body>` keyed with WEBHOOK_SECRET, compared in constant time; the
 * timestamp (Unix seconds) must be within 300 s of now. Idempotent by `id`: the MINT line
 * carries ref `webhook:<id>`, so a retry finds it and answers `{duplicate: true}` without a
 * second line, across restarts too. 404 while no secret is configured.
 */

export const WEBHOOK_WINDOW_SECONDS = 300

export const WebhookBody = z.strictObject({
  id: z.string().min(1).max(128).describe('The payment\'s id: the idempotency key'),
  to: PrincipalName,
  amount: z.number().int().min(1).max(1_000_000_000),
  note: z.string().max(400).optional()
})
export const WebhookReply = z.object({ ok: z.literal(true), duplicate: z.boolean(), line: LedgerLine })

export function webhookSignature (secret: string, timestamp: string, raw: Buffer | string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(raw).digest('hex')
}

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)

export async function topUp (core: ResellerCore, secret: string | undefined, headers: Record<string, string | string[] | undefined>, raw: Buffer): Promise<z.input<typeof WebhookReply>> {
  if (secret === undefined) throw ResellerError.of('RESELLER_WEBHOOK_DISABLED')
  const ts = one(headers['x-topup-timestamp']) ?? ''
  const sig = (one(headers['x-topup-signature']) ?? '').trim().toLowerCase()
  if (!/^\d{1,12}$/.test(ts) || Math.abs(core.now() / 1000 - Number(ts)) > WEBHOOK_WINDOW_SECONDS) {
    throw ResellerError.of('RESELLER_WEBHOOK_STALE', `x-topup-timestamp must be Unix seconds within ${WEBHOOK_WINDOW_SECONDS} s of now`)
  }
  const expected = Buffer.from(webhookSignature(secret, ts, raw), 'hex')
  const given = /^[0-9a-f]{64}$/.test(sig) ? Buffer.from(sig, 'hex') : Buffer.alloc(32)
  if (!timingSafeEqual(expected, given) || !/^[0-9a-f]{64}$/.test(sig)) throw ResellerError.of('RESELLER_WEBHOOK_SIGNATURE', 'x-topup-signature does not match')
  let json: unknown
  try { json = JSON.parse(raw.toString('utf8')) } catch { throw ResellerError.invalid('body: not JSON') }
  const parsed = WebhookBody.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw ResellerError.invalid(`${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`)
  }
  const body = parsed.data
  const ref = `webhook:${body.id}`
  const seen = core.ledger.byRef(ref)
  if (seen) return { ok: true, duplicate: true, line: seen }
  if (!core.principals.creditable(body.to)) throw ResellerError.notFound('principal', body.to)
  const r = (await core.ledger.append(() => ({ type: 'MINT', actor: 'webhook', principal: body.to, amount: body.amount, ref, note: body.note ?? `top-up ${body.id}` })))!
  if (!r.duplicate) core.activity.record({ event: 'credits.webhook', principal: body.to, amount: body.amount }, 'top-up webhook minted credits')
  return { ok: true, duplicate: r.duplicate, line: r.line }
}

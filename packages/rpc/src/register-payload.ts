import { z } from 'zod'
import { MAX_REGISTER_PAYLOAD_BYTES, PROTOCOL_VERSION } from './constants.js'
import { describeIssues } from './detail.js'
import { RpcError } from './errors.js'
import { EpochMs, Hex32, isWellFormedText, text, Version } from './schema-common.js'
import { isJsonObject, utf8Encode, utf8Length } from './text.js'

// Spec: 1-panel.md "Catalog record" (field rules, rule 7 for stream ids),
// "Peer-to-peer RPC" register rules; the payload is signed as exact text.

/**
 * The object a broadcaster or library signs and the panel parses from
 * `register.payload`. Live payloads may carry `isLive`; vod payloads may carry
 * `durationSec` and `status`. `key` is the stream content key: the panel keeps
 * it private and never writes it to the catalog.
 */
export const RegisterPayload = z.strictObject({
  v: Version,
  streamId: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'expected 1-64 of A-Z a-z 0-9 _ . -'),
  publisher: text(1, 64).optional(),
  type: z.enum(['live', 'vod']).default('live'),
  feedKey: Hex32.nullable(),
  isLive: z.boolean().optional(),
  durationSec: z.number().min(0).nullable().optional(),
  status: z.enum(['available', 'unavailable']).optional(),
  key: Hex32,
  title: text(0, 200).optional(),
  description: text(0, 4000).optional(),
  category: z.array(text(1, 64)).max(16).optional(),
  ts: EpochMs
}).superRefine((p, ctx) => {
  if (p.type === 'live') {
    if (p.durationSec !== undefined) ctx.addIssue({ code: 'custom', path: ['durationSec'], message: 'vod only' })
    if (p.status !== undefined) ctx.addIssue({ code: 'custom', path: ['status'], message: 'vod only' })
  } else if (p.isLive !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['isLive'], message: 'live only' })
  }
})
/** A parsed register payload (`type` defaulted). */
export type RegisterPayload = z.infer<typeof RegisterPayload>
/** What {@link encodeRegisterPayload} accepts: `v` and `type` may be omitted. */
export type RegisterPayloadInput = Omit<z.input<typeof RegisterPayload>, 'v'> & { v?: typeof PROTOCOL_VERSION }

/** Result of {@link parseRegisterPayload}. */
export type RegisterPayloadParse =
  | { ok: true, value: RegisterPayload }
  | { ok: false, detail: string }

/**
 * Parse register payload text as received; never throws. Checks the byte cap,
 * well-formed Unicode, JSON syntax and the {@link RegisterPayload} schema.
 */
export function parseRegisterPayload (text: unknown): RegisterPayloadParse {
  if (typeof text !== 'string') return { ok: false, detail: 'payload must be a string' }
  if (utf8Length(text) > MAX_REGISTER_PAYLOAD_BYTES) return { ok: false, detail: `payload exceeds ${MAX_REGISTER_PAYLOAD_BYTES} bytes` }
  if (!isWellFormedText(text)) return { ok: false, detail: 'payload contains a lone surrogate' }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { ok: false, detail: 'payload is not JSON' }
  }
  if (!isJsonObject(json)) return { ok: false, detail: 'payload must be a JSON object' }
  const parsed = RegisterPayload.safeParse(json)
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, detail: describeIssues(parsed.error.issues) }
}

/**
 * Validate `obj` and return the exact JSON text to sign and send as
 * `register.payload` (`v: 1` and `type: 'live'` filled in). Throws
 * `RPC_INVALID_ARGUMENT` when the payload is invalid or over 16 KiB.
 */
export function encodeRegisterPayload (obj: RegisterPayloadInput): string {
  const parsed = RegisterPayload.safeParse({ ...obj, v: PROTOCOL_VERSION })
  if (!parsed.success) throw RpcError.invalidArgument(describeIssues(parsed.error.issues))
  const text = JSON.stringify(parsed.data)
  if (utf8Length(text) > MAX_REGISTER_PAYLOAD_BYTES) throw RpcError.invalidArgument(`payload exceeds ${MAX_REGISTER_PAYLOAD_BYTES} bytes`)
  return text
}

/** The bytes a register signature covers: the UTF-8 encoding of `payload` exactly as sent. */
export function registerSignedBytes (payload: string): Uint8Array {
  return utf8Encode(payload)
}

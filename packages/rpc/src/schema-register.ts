import { z } from 'zod'
import { parseRegisterPayload } from './register-payload.js'
import { Hex64, Version } from './schema-common.js'

// Publisher method. Spec: 1-panel.md "Peer-to-peer RPC" register rules,
// "Authentication" 7, "Errors" register rows.

/**
 * `register` request: the payload as exact JSON text (≤ 16 KiB) and an Ed25519
 * signature over its UTF-8 bytes. The payload must also parse as a
 * RegisterPayload, so a handler never sees a malformed one.
 */
export const RegisterRequest = z.strictObject({
  v: Version,
  payload: z.string().superRefine((text, ctx) => {
    const parsed = parseRegisterPayload(text)
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.detail })
  }),
  sig: Hex64
})
export type RegisterRequest = z.infer<typeof RegisterRequest>

/** `register` reply: accepted; `changed` is false when the catalog needed no write. */
export const RegisterReply = z.strictObject({
  v: Version,
  ok: z.literal(true),
  changed: z.boolean()
})
export type RegisterReply = z.infer<typeof RegisterReply>

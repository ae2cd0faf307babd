import { z } from 'zod'
import { Count, EpochMs, Hex32, Hex64, hexBytes, text, Username, Version } from './schema-common.js'

// Viewer login methods. Spec: 1-panel.md "Peer-to-peer RPC" (hello, login,
// session) and "Authentication" 6; ARCHITECTURE.md "Login".

/** `hello` request: `{ v }`. */
export const HelloRequest = z.strictObject({ v: Version })
export type HelloRequest = z.infer<typeof HelloRequest>

/** `hello` reply: a fresh per-connection proof-of-work challenge and its difficulty in leading zero bits. */
export const HelloReply = z.strictObject({
  v: Version,
  challenge: Hex32,
  difficulty: z.number().int().min(0).max(32)
})
export type HelloReply = z.infer<typeof HelloReply>

/** `login` request: the blinded OPRF element (ristretto255, RFC 9497) plus the proof-of-work nonce. */
export const LoginRequest = z.strictObject({
  v: Version,
  username: Username,
  blinded: Hex32,
  powNonce: z.string().regex(/^(?:[0-9a-f]{2}){1,32}$/, 'expected lowercase hex of 1-32 bytes')
})
export type LoginRequest = z.infer<typeof LoginRequest>

/** `login` reply: the blinded evaluation and the challenge the session signatures cover. */
export const LoginReply = z.strictObject({
  v: Version,
  evaluated: Hex32,
  sessionChallenge: Hex32
})
export type LoginReply = z.infer<typeof LoginReply>

/**
 * A re-key to login key schedule 2 (docs/architecture.md "Login", "Migration"): the record's
 * new salt, verifier, auth key and sealed X25519 secret (the key pair itself does not change).
 * `oldSig` by the record's current auth key and `newSig` by the new one, both over
 * {@link rekeySignedBytes}. Sent only to a panel whose `meta/panel` says `keySchedule: 2`.
 */
export const Rekey = z.strictObject({
  keyVersion: z.literal(2),
  salt: hexBytes(16),
  verifier: Hex32,
  authPub: Hex32,
  encPriv: z.string().regex(/^(?:[0-9a-f]{2}){40,512}$/, 'expected lowercase hex of 40-512 bytes'),
  oldSig: Hex64,
  newSig: Hex64
})
export type Rekey = z.infer<typeof Rekey>

/** `session` request: device enrollment signed by the user's auth key and the device key. */
export const SessionRequest = z.strictObject({
  v: Version,
  username: Username,
  deviceId: Hex32,
  label: text(0, 64).optional(),
  authSig: Hex64,
  deviceSig: Hex64,
  rekey: Rekey.optional()
})
export type SessionRequest = z.infer<typeof SessionRequest>

/**
 * `session` reply: the panel-signed session token. `keyVersion` answers a `rekey` only (so a
 * client that never sends one never sees it): 2 when the record now holds schedule 2.
 */
export const SessionReply = z.strictObject({
  v: Version,
  token: z.string().min(1).max(8192),
  expiresAt: EpochMs,
  tokenVersion: Count,
  deviceCount: Count,
  keyVersion: z.number().int().min(1).max(255).optional()
})
export type SessionReply = z.infer<typeof SessionReply>

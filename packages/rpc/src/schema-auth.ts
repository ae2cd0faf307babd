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

/** `kdf` request: the username whose Argon2id salt and cost the client needs for its verifier. */
export const KdfRequest = z.strictObject({ v: Version, username: Username })
export type KdfRequest = z.infer<typeof KdfRequest>

/**
 * `kdf` reply: the salt and cost of `user/<username>` as the panel's catalog holds them (for an
 * unknown name, a salt derived from the panel's seed and the panel's current cost, stable per
 * name). Bounds are libsodium's Argon2id limits.
 */
export const KdfReply = z.strictObject({
  v: Version,
  salt: hexBytes(16),
  argon: z.strictObject({
    opslimit: z.number().int().min(1).max(0xffffffff),
    memlimit: z.number().int().min(8192).max(Number.MAX_SAFE_INTEGER)
  })
})
export type KdfReply = z.infer<typeof KdfReply>

/** `session` request: device enrollment signed by the user's auth key and the device key. */
export const SessionRequest = z.strictObject({
  v: Version,
  username: Username,
  deviceId: Hex32,
  label: text(0, 64).optional(),
  authSig: Hex64,
  deviceSig: Hex64
})
export type SessionRequest = z.infer<typeof SessionRequest>

/** `session` reply: the panel-signed session token. */
export const SessionReply = z.strictObject({
  v: Version,
  token: z.string().min(1).max(8192),
  expiresAt: EpochMs,
  tokenVersion: Count,
  deviceCount: Count
})
export type SessionReply = z.infer<typeof SessionReply>

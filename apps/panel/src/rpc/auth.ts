import { keys as catalogKeys, type UserRecord } from '@arus/catalog'
import {
  createPowChallenge, deriveUserOprfKey, fromHex, oprf, randomBytes, signToken, toHex, verify, verifyPow
} from '@arus/crypto'
import { rekeySignedBytes, sessionSignedBytes, type Rekey, type RpcContext, type RpcErrorBody, type RpcReply, type RpcRequest } from '@arus/rpc'
import type { AnalyticsRecorder } from '../analytics/index.js'
import type { PanelContext } from '../context.js'
import type { PanelMetrics } from '../metrics.js'
import type { Lockout as Throttle } from '@arus/service'

/** hello → login → session (spec 1 "Peer-to-peer RPC", "Authentication" 6; ARCHITECTURE "Login"). */

type CallContext = RpcContext
type Err = RpcErrorBody

/** Per-connection scratch kept in `connectionState`. */
interface AuthState { challenge: Uint8Array | null; sessionChallenge: Uint8Array | null; sessionUser: string | null }

function state (call: CallContext): AuthState {
  let s = call.connectionState.get('auth') as AuthState | undefined
  if (!s) { s = { challenge: null, sessionChallenge: null, sessionUser: null }; call.connectionState.set('auth', s) }
  return s
}

const throttleKeys = (username: string, call: CallContext) => [`user:${username}`, `peer:${toHex(call.remotePublicKey)}`]

/** Devices of `u` after enrolling `deviceId`; the same object when nothing changes (so nothing is written). */
export function enrollDevice (u: UserRecord, deviceId: string, label: string, now: number): UserRecord {
  const existing = u.devices.find((d) => d.deviceId === deviceId)
  if (existing && existing.tokenVersion === u.tokenVersion && existing.label === label && existing.status === 'active') return u
  const others = u.devices.filter((d) => d.deviceId !== deviceId)
  const entry = { deviceId, label, enrolledAt: existing?.enrolledAt ?? now, expiresAt: null, tokenVersion: u.tokenVersion, status: 'active' as const }
  const devices = [...others, entry].sort((a, b) => a.enrolledAt - b.enrolledAt)
  // Past maxDevices the oldest enrollments are evicted (spec 1 "States and transitions").
  while (devices.length > u.maxDevices) devices.splice(devices.findIndex((d) => d.deviceId !== deviceId), 1)
  return { ...u, devices }
}

/** `u` re-keyed to schedule 2: new salt, verifier, auth key and seal; the X25519 pair, grants and cost stay. */
function withRekey (u: UserRecord, rekey: Rekey): UserRecord {
  return { ...u, keyVersion: 2, salt: rekey.salt, verifier: rekey.verifier, authPub: rekey.authPub, encPriv: rekey.encPriv }
}

/** `analytics` counts what `metrics` counts (spec 1 "Analytics"); it alone sees the username, only to hash it. */
export function createAuthHandlers (ctx: PanelContext, throttle: Throttle, metrics: PanelMetrics, analytics: AnalyticsRecorder) {
  return {
    async hello (_req: RpcRequest<'hello'>, call: CallContext): Promise<RpcReply<'hello'>> {
      const s = state(call)
      s.challenge = createPowChallenge()
      return { v: 1, challenge: toHex(s.challenge), difficulty: ctx.settings.powDifficulty }
    },

    async login (req: RpcRequest<'login'>, call: CallContext): Promise<RpcReply<'login'> | Err> {
      const s = state(call)
      const challenge = s.challenge
      s.challenge = null // one proof per challenge: hello again for the next attempt
      if (!challenge) return { error: 'no-challenge' }
      if (!verifyPow(challenge, fromHex(req.powNonce), ctx.settings.powDifficulty)) return { error: 'bad-pow' }
      const keys = throttleKeys(req.username, call)
      const retryAfter = throttle.retryAfter(keys)
      if (retryAfter > 0) { metrics.loginsFailed.inc(); analytics.loginFailed(); return { error: 'locked', retryAfter } }
      throttle.hit(keys)
      // Unknown usernames are evaluated under their derived key too: the reply cannot tell them apart.
      const sk = deriveUserOprfKey(ctx.identity.oprfSeed, req.username)
      let evaluated: Uint8Array
      try {
        evaluated = oprf.blindEvaluate(sk, fromHex(req.blinded, 32))
      } catch {
        return { error: 'invalid-request', detail: 'blinded is not a valid ristretto255 element' }
      }
      s.sessionChallenge = randomBytes(32)
      s.sessionUser = req.username
      // The viewer reads user/<name> from its replica next (docs/architecture.md "The first
      // login"): its replica is told which blocks that read needs, beside this reply. Known or
      // not, the name's path is offered alike (the catalog is public to viewers anyway).
      try { ctx.catalog.offerPath(catalogKeys.user(req.username), call.remotePublicKey) } catch { /* best effort: the read works without it */ }
      return { v: 1, evaluated: toHex(evaluated), sessionChallenge: toHex(s.sessionChallenge) }
    },

    async session (req: RpcRequest<'session'>, call: CallContext): Promise<RpcReply<'session'> | Err> {
      const s = state(call)
      const challenge = s.sessionChallenge
      const forUser = s.sessionUser
      s.sessionChallenge = null
      s.sessionUser = null
      if (!challenge || forUser !== req.username) return { error: 'no-challenge' }
      const keys = throttleKeys(req.username, call)
      const retryAfter = throttle.retryAfter(keys)
      if (retryAfter > 0) return { error: 'locked', retryAfter }
      const user = await ctx.catalog.getUser(req.username)
      const msg = sessionSignedBytes(challenge, req.username, req.deviceId)
      const ok = user !== null &&
        verify(msg, fromHex(req.authSig, 64), fromHex(user.authPub, 32)) &&
        verify(msg, fromHex(req.deviceSig, 64), fromHex(req.deviceId, 32))
      if (!ok || !user) { metrics.loginsFailed.inc(); analytics.loginFailed(); return { error: 'unauthorized' } }
      if (user.status !== 'active') { metrics.loginsFailed.inc(); analytics.loginFailed(); return { error: 'disabled' } }
      const rekey = req.rekey
      if (rekey !== undefined) {
        // Only a schedule-1 record re-keys, and only with both keys' signatures (the old one
        // proves the password as the session signature did; the new one proves the client holds
        // the key it asks the panel to write).
        if (user.keyVersion !== undefined) return { error: 'invalid-request', detail: 'the account is already on key schedule 2' }
        const signed = rekeySignedBytes(challenge, req.username, req.deviceId, rekey, user.argon)
        if (!verify(signed, fromHex(rekey.oldSig, 64), fromHex(user.authPub, 32)) || !verify(signed, fromHex(rekey.newSig, 64), fromHex(rekey.authPub, 32))) {
          metrics.loginsFailed.inc(); analytics.loginFailed(); return { error: 'unauthorized' }
        }
      }
      const now = ctx.now()
      let enrolled: UserRecord = user
      let rekeyed = false
      await ctx.catalog.updateUser(req.username, (u) => {
        if (!u) return undefined
        enrolled = enrollDevice(u, req.deviceId, req.label ?? '', now)
        // The enrollment and the re-key are one write; a record that changed since it was
        // checked (a password set, another device's re-key) keeps what it has.
        if (rekey !== undefined && u.keyVersion === undefined && u.authPub === user.authPub) {
          enrolled = withRekey(enrolled, rekey)
          rekeyed = true
        }
        return enrolled === u ? undefined : enrolled
      })
      if (rekeyed) ctx.activity.record({ event: 'user.rekeyed', username: req.username, keyVersion: 2 }, 'account moved to key schedule 2')
      throttle.reset(keys)
      const expiresAt = now + ctx.settings.sessionTtlMs
      const token = signToken({ v: 1, typ: 'session', sub: req.username, dev: req.deviceId, tv: enrolled.tokenVersion, iat: now, exp: expiresAt }, ctx.identity.secretKey)
      metrics.loginsOk.inc()
      metrics.sessionsIssued.inc()
      analytics.loginSucceeded()
      analytics.sessionIssued(req.username)
      return {
        v: 1, token, expiresAt, tokenVersion: enrolled.tokenVersion, deviceCount: enrolled.devices.length,
        ...(rekey === undefined ? {} : { keyVersion: enrolled.keyVersion ?? 1 })
      }
    }
  }
}

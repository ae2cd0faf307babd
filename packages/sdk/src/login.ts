import b4a from 'b4a'
import type { CatalogReader, UserRecord } from '@arus/catalog'
import {
  deriveAuthKeyPair, deriveRwd, deriveWrapKey, fromHex, oprf, openGrant, openSecret, sign, solvePow, toHex, type KeyPair
} from '@arus/crypto'
import { RpcError, sessionSignedBytes, type RpcClient } from '@arus/rpc'
import { LOGIN_CATALOG_WAIT_MS, LOGIN_ENROLL_WAIT_MS } from './constants.js'
import { SdkError } from './errors.js'
import { PhaseTrace } from './trace.js'

/** What a successful login leaves in the engine's memory. Stream keys never leave it. */
export interface LoginState {
  username: string
  deviceId: string
  token: string
  expiresAt: number
  tokenVersion: number
  deviceCount: number
  /** streamId → unsealed 32-byte stream content key. */
  keys: Map<string, Uint8Array>
}

/** A login whose session is issued; `enrolled` resolves once the local replica shows it. */
export interface LoginOutcome {
  state: LoginState
  enrolled: Promise<void>
}

export interface LoginInit {
  username: string
  password: string
  /** The device key (loaded beside the network steps: it is needed only to sign the session). */
  device: KeyPair | Promise<KeyPair>
  label?: string | undefined
}

/** hello/login retries when the panel asks for a fresh challenge (docs/rpc-protocol.md step 5). */
const CHALLENGE_RETRIES = 3

/**
 * Spec 3 "Authentication" 1, docs/rpc-protocol.md "Login, step by step": hello → proof of work →
 * OPRF login → read user/<name> from the verified replica → finalize → unseal (a wrong password
 * fails here, client-side) → session.
 *
 * The replica read does not depend on the panel's answers, so it runs beside the OPRF round;
 * the blinding and the finalize run while the link or the read is still waited for; every step
 * is recorded on `trace` (docs/benchmarks.md "Login phases"). The record's Argon2id verifier is
 * not recomputed here: it proves nothing the seal does not, and an attacker never computes it
 * (docs/architecture.md "Why the client runs no Argon2id").
 */
export async function runLogin (link: RpcClient | Promise<RpcClient | null>, reader: CatalogReader, init: LoginInit, trace = new PhaseTrace()): Promise<LoginOutcome> {
  const input = b4a.from(init.password, 'utf8')
  // The replica read needs no answer from the panel: it starts at once, beside the link wait.
  const reading = readUser(reader, init.username, trace)
  reading.catch(() => {}) // an earlier failure is thrown first; this one must not go unhandled
  const device = Promise.resolve(init.device)
  device.catch(() => {})
  // The blinding needs only the password (a few ms of ristretto255 in JS): done while the link
  // dials, not between the proof of work and the OPRF call.
  const blinded = await trace.time('blind', () => oprf.blind(input))
  const rpc = await link
  if (rpc === null) throw SdkError.notConnected()
  const { reply, blind } = await oprfRound(rpc, init.username, input, blinded, trace)
  // Finalized while the replica read may still run (a wrong evaluation is reported after the
  // record: an unknown user stays a wrong password).
  let rwd: Uint8Array | null = null
  let finalizeError: unknown = null
  try {
    rwd = deriveRwd(oprf.finalize(input, blind, fromHex(reply.evaluated, 32)))
  } catch (err) {
    finalizeError = err
  }
  const user = await reading
  if (user === null) throw SdkError.wrongPassword()
  if (rwd === null) throw finalizeError
  // A wrong password fails here, on the client: the X25519 secret is sealed under a key from rwd
  // (XSalsa20-Poly1305), and it does not open. So a wrong password never reaches `session`.
  let userSecret: Uint8Array
  try {
    userSecret = await trace.time('unseal', () => openSecret(deriveWrapKey(rwd), user.encPriv))
  } catch {
    throw SdkError.wrongPassword()
  }
  const auth = deriveAuthKeyPair(rwd)
  const keys = await trace.time('grants', () => unsealGrants(user, userSecret))
  const deviceKey = await device
  const deviceId = toHex(deviceKey.publicKey)
  const signed = sessionSignedBytes(fromHex(reply.sessionChallenge, 32), init.username, deviceId)
  const session = await trace.time('session call', () => call(() => rpc.session({
    username: init.username,
    deviceId,
    ...(init.label === undefined ? {} : { label: init.label }),
    authSig: toHex(sign(signed, auth.secretKey)),
    deviceSig: toHex(sign(signed, deviceKey.secretKey))
  })))
  // The wait for the replica to show the new enrollment starts at once (bounded; it runs beside
  // the display list in the player); login resolves only after it.
  const waiting = trace.time('enrollment wait', () => enrolled(reader, init.username, deviceId, session.tokenVersion))
  waiting.catch(() => {}) // the caller awaits it
  const state: LoginState = {
    username: init.username,
    deviceId,
    token: session.token,
    expiresAt: session.expiresAt,
    tokenVersion: session.tokenVersion,
    deviceCount: session.deviceCount,
    keys
  }
  return { state, enrolled: waiting }
}

async function oprfRound (rpc: RpcClient, username: string, input: Uint8Array, first: ReturnType<typeof oprf.blind>, trace: PhaseTrace) {
  for (let attempt = 1; ; attempt++) {
    const hello = await trace.time('hello', () => call(() => rpc.hello()))
    const nonce = await trace.time('proof of work', () => solvePow(fromHex(hello.challenge, 32), hello.difficulty))
    // A fresh blinding for every retry: two attempts never send the same element.
    const { blind, blindedElement } = attempt === 1 ? first : oprf.blind(input)
    try {
      const reply = await trace.time('oprf call', () => call(() => rpc.login({ username, blinded: toHex(blindedElement), powNonce: toHex(nonce) }), true))
      return { reply, blind }
    } catch (err) {
      const reason = (err as RpcError).reason
      if ((reason === 'bad-pow' || reason === 'no-challenge') && attempt < CHALLENGE_RETRIES) continue
      throw translate(err)
    }
  }
}

async function readUser (reader: CatalogReader, username: string, trace: PhaseTrace): Promise<UserRecord | null> {
  try {
    await trace.time('catalog update', () => reader.update({ wait: true, timeoutMs: LOGIN_CATALOG_WAIT_MS }))
    return await trace.time('user record', () => reader.getUser(username))
  } catch (err) {
    throw SdkError.catalogUnavailable(err)
  }
}

/**
 * The panel writes the enrollment before it answers, but the local replica may not have it yet:
 * waits (bounded; best effort, login succeeds either way) until the replica shows this device
 * under the session's tokenVersion.
 */
async function enrolled (reader: CatalogReader, username: string, deviceId: string, tokenVersion: number): Promise<void> {
  const deadline = Date.now() + LOGIN_ENROLL_WAIT_MS
  for (let attempt = 0; attempt < 100 && Date.now() < deadline; attempt++) {
    const user = await reader.getUser(username).catch(() => null)
    if (user?.devices.some((d) => d.deviceId === deviceId && d.tokenVersion === tokenVersion) === true) return
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50))
    await reader.update({ wait: true, timeoutMs: Math.max(1, deadline - Date.now()) }).catch(() => false)
  }
}

function unsealGrants (user: UserRecord, userSecret: Uint8Array): Map<string, Uint8Array> {
  const keys = new Map<string, Uint8Array>()
  const pub = fromHex(user.pub, 32)
  for (const [id, sealed] of Object.entries(user.wrapped)) {
    try {
      keys.set(id, openGrant(sealed, pub, userSecret))
    } catch {
      // A grant sealed to an older key pair cannot open; the panel re-seals on rotation.
    }
  }
  return keys
}

/** Runs an RPC call; `raw` keeps RpcErrors for the caller to inspect. */
async function call<T> (fn: () => Promise<T>, raw = false): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    throw raw ? err : translate(err)
  }
}

function translate (err: unknown): Error {
  if (!(err instanceof RpcError)) return err instanceof Error ? err : new Error(String(err))
  switch (err.code) {
    case 'RPC_CLOSED': return SdkError.notConnected()
    case 'RPC_TIMEOUT': return SdkError.loginFailed('the panel did not answer in time', err)
    case 'RPC_REMOTE_ERROR':
      if (err.reason === 'locked') return SdkError.locked(err.retryAfter)
      if (err.reason === 'disabled') return SdkError.disabled()
      if (err.reason === 'unauthorized') return SdkError.wrongPassword()
      return SdkError.loginFailed(err.reason ?? 'panel error', err)
    default: return SdkError.loginFailed(err.message, err)
  }
}

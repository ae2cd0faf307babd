import b4a from 'b4a'
import type { CatalogReader, UserRecord } from '@arus/catalog'
import {
  computeVerifier, constantTimeEqual, deriveAuthKeyPair, deriveRwd, deriveWrapKey, fromHex, oprf, openGrant,
  openSecret, sign, solvePow, toHex, type ArgonCost, type KeyPair
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
 * fails here, client-side) → session, beside the Argon2id verifier check (login resolves only
 * once it matched).
 *
 * The replica read does not depend on the panel's answers, so it runs beside the OPRF round;
 * the blinding and the finalize run while the link or the read is still waited for, and
 * Argon2id starts with the salt and cost of the panel's `kdf` answer when that comes before the
 * record (docs/benchmarks.md "Login phases"); every step is recorded on `trace`.
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
  // The salt and cost, asked beside the OPRF round: Argon2id can then start with the OPRF
  // reply instead of after the replica's read (an older panel: from the record, as before).
  const kdf = askKdf(rpc, init.username, trace)
  const { reply, blind } = await oprfRound(rpc, init.username, input, blinded, trace)
  // Finalized while the replica read may still run (a wrong evaluation is reported after the
  // record, as before: an unknown user stays a wrong password).
  let rwd: Uint8Array | null = null
  let finalizeError: unknown = null
  try {
    rwd = deriveRwd(oprf.finalize(input, blind, fromHex(reply.evaluated, 32)))
  } catch (err) {
    finalizeError = err
  }
  if (rwd === null) {
    if ((await reading) === null) throw SdkError.wrongPassword()
    throw finalizeError
  }
  const { user, verified } = await verifierFor(rwd, kdf, reading, trace)
  // A wrong password fails here already, on the client: the X25519 secret is sealed under a key
  // from rwd (XSalsa20-Poly1305), and it does not open. So the session call need not wait for
  // Argon2id: it runs beside it, and login() resolves only after the verifier matched too.
  let userSecret: Uint8Array
  try {
    userSecret = await trace.time('unseal', () => openSecret(deriveWrapKey(rwd), user.encPriv))
  } catch {
    await verified.catch(() => {})
    throw SdkError.wrongPassword()
  }
  const auth = deriveAuthKeyPair(rwd)
  const keys = await trace.time('grants', () => unsealGrants(user, userSecret))
  const [issued, checked] = await Promise.allSettled([(async () => {
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
    // the rest of Argon2id and the display list in the player); login resolves only after it.
    const waiting = trace.time('enrollment wait', () => enrolled(reader, init.username, deviceId, session.tokenVersion))
    waiting.catch(() => {}) // the caller awaits it; on a failed login nobody does (it ends within its bound)
    return { session, deviceId, waiting }
  })(), verified])
  if (checked.status === 'rejected') throw checked.reason
  if (!checked.value) throw SdkError.wrongPassword()
  if (issued.status === 'rejected') throw issued.reason
  const { session, deviceId, waiting } = issued.value
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

/** The Argon2id input besides rwd: `user.salt` and `user.argon`. */
interface KdfParams { salt: string; argon: ArgonCost }

const paramsOf = (user: UserRecord | null): KdfParams | null => user === null ? null : { salt: user.salt, argon: user.argon }

/** The panel's `kdf` answer, or null when it has none (an older panel: unknown method) or fails. */
function askKdf (rpc: RpcClient, username: string, trace: PhaseTrace): Promise<KdfParams | null> {
  return trace.time('kdf call', () => rpc.kdf({ username })).then((r) => ({ salt: r.salt, argon: r.argon }), () => null)
}

/**
 * Starts Argon2id with the salt and cost that come first, the panel's `kdf` answer or the
 * replica's record, and returns the record with `verified`: whether the record's verifier
 * matches. A run started from a `kdf` answer counts only when the record names the same salt
 * and cost; otherwise (a password rotated in between) it runs again with the record's. No
 * Argon2id run outlives a failure here (no record: a wrong password; a failed read).
 */
async function verifierFor (rwd: Uint8Array, kdf: Promise<KdfParams | null>, reading: Promise<UserRecord | null>, trace: PhaseTrace): Promise<{ user: UserRecord, verified: Promise<boolean> }> {
  const first = await Promise.race([kdf.then((p) => p ?? reading.then(paramsOf)), reading.then(paramsOf)])
  if (first === null) throw SdkError.wrongPassword() // the record came first, and there is none
  const argon = (p: KdfParams): Promise<Uint8Array> => trace.time('argon2id', () => computeVerifier(rwd, fromHex(p.salt, 16), p.argon))
  const running = argon(first)
  running.catch(() => {}) // awaited below on every path
  const settle = async (): Promise<void> => { await running.catch(() => {}) }
  let user: UserRecord | null
  try {
    user = await reading
  } catch (err) {
    await settle()
    throw err
  }
  if (user === null) {
    await settle()
    throw SdkError.wrongPassword()
  }
  const record = user
  const same = first.salt === record.salt && first.argon.opslimit === record.argon.opslimit && first.argon.memlimit === record.argon.memlimit
  const verified = (async () => {
    const verifier = same ? await running : (await settle(), await argon(paramsOf(record)!))
    return constantTimeEqual(verifier, fromHex(record.verifier, 32))
  })()
  verified.catch(() => {}) // the caller awaits it on every path
  return { user: record, verified }
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

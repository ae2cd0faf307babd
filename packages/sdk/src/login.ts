import b4a from 'b4a'
import type { CatalogReader, GroupRecord, UserRecord } from '@arus/catalog'
import {
  KEY_SCHEDULE_CURRENT, deriveLoginKeysV1, deriveLoginKeysV2, fromHex, newSalt, oprf, openGrants, openSecret, sealSecret,
  sign, solvePow, toHex, type KeyPair
} from '@arus/crypto'
import { RpcError, rekeySignedBytes, sessionSignedBytes, type Rekey, type RpcClient } from '@arus/rpc'
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
 * OPRF login → read user/<name> from the verified replica → finalize → the record's key
 * schedule → unseal (a wrong password fails here, client-side) → session.
 *
 * Key schedule 2 (docs/architecture.md "Login") runs Argon2id at the record's cost on the OPRF
 * output before any key exists; a schedule-1 record opens without it, and the login re-keys it
 * to schedule 2 inside the same session call when the panel takes re-keys (`meta/panel`). The
 * replica read does not depend on the panel's answers, so it runs beside the OPRF round; the
 * blinding and the finalize run while the link or the read is still waited for; every step is
 * recorded on `trace` (docs/benchmarks.md "Login phases").
 *
 * A session refused because the record changed under the login (another device re-keyed it
 * first, a password set) is retried once against the new record.
 */
export async function runLogin (link: RpcClient | Promise<RpcClient | null>, reader: CatalogReader, init: LoginInit, trace = new PhaseTrace()): Promise<LoginOutcome> {
  try {
    return await loginOnce(link, reader, init, trace)
  } catch (err) {
    if (!(err instanceof StaleRecord)) throw err
  }
  try {
    return await loginOnce(link, reader, init, trace)
  } catch (err) {
    throw err instanceof StaleRecord ? SdkError.wrongPassword() : err
  }
}

/** The session was refused and the replica's record is not the one the keys came from. */
class StaleRecord extends Error {}

async function loginOnce (link: RpcClient | Promise<RpcClient | null>, reader: CatalogReader, init: LoginInit, trace: PhaseTrace): Promise<LoginOutcome> {
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
  let output: Uint8Array | null = null
  let finalizeError: unknown = null
  try {
    output = oprf.finalize(input, blind, fromHex(reply.evaluated, 32))
  } catch (err) {
    finalizeError = err
  }
  const user = await reading
  if (user === null) throw SdkError.wrongPassword()
  if (output === null) throw finalizeError
  // The grant groups the record holds (issue 43) are read while the key schedule runs.
  const groups = readGroups(reader, user, trace)
  groups.catch(() => {})
  const opened = await openAccount(reader, user, output, trace)
  const records = await groups
  const keys = await trace.time('grants', () => openGrants(user, records, opened.userSecret))
  const deviceKey = await device
  const deviceId = toHex(deviceKey.publicKey)
  const challenge = fromHex(reply.sessionChallenge, 32)
  const signed = sessionSignedBytes(challenge, init.username, deviceId)
  const rekey = opened.next === null ? undefined : signRekey(opened.next, opened.auth, challenge, init.username, deviceId, user)
  let session
  try {
    session = await trace.time('session call', () => call(() => rpc.session({
      username: init.username,
      deviceId,
      ...(init.label === undefined ? {} : { label: init.label }),
      authSig: toHex(sign(signed, opened.auth.secretKey)),
      deviceSig: toHex(sign(signed, deviceKey.secretKey)),
      ...(rekey === undefined ? {} : { rekey })
    })))
  } catch (err) {
    if (err instanceof SdkError && err.code === 'SDK_WRONG_PASSWORD' && await recordChanged(reader, init.username, user)) throw new StaleRecord()
    throw err
  }
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

/** The opened account: its X25519 secret, the auth key the session is signed with, and a re-key to offer. */
interface OpenedAccount {
  userSecret: Uint8Array
  auth: KeyPair
  /** Schedule-2 fields for a schedule-1 record, when the panel takes a re-key. */
  next: { salt: string; verifier: string; encPriv: string; auth: KeyPair } | null
}

/**
 * Derives the record's keys from the OPRF output and opens its seal. Schedule 2: Argon2id at
 * the record's cost, then the seal. Schedule 1: the seal at once (a wrong password fails before
 * any Argon2id), then, if the panel takes re-keys, the schedule-2 keys under a fresh salt with
 * the same X25519 secret sealed under the new wrap key (so `pub` and every grant stay).
 */
async function openAccount (reader: CatalogReader, user: UserRecord, output: Uint8Array, trace: PhaseTrace): Promise<OpenedAccount> {
  const version = user.keyVersion ?? 1
  if (version > KEY_SCHEDULE_CURRENT) throw SdkError.loginFailed(`the account uses login key schedule ${version}; this SDK knows 1 and ${KEY_SCHEDULE_CURRENT}: update the app`)
  if (version === 2) {
    const keys = await stretch(output, fromHex(user.salt, 16), user, trace)
    return { userSecret: await unseal(keys.wrapKey, user.encPriv, trace), auth: keys.auth, next: null }
  }
  const legacy = deriveLoginKeysV1(output)
  const userSecret = await unseal(legacy.wrapKey, user.encPriv, trace)
  if (!(await panelTakesRekey(reader))) return { userSecret, auth: legacy.auth, next: null }
  const salt = newSalt()
  const keys = await stretch(output, salt, user, trace)
  const encPriv = sealSecret(keys.wrapKey, userSecret)
  return { userSecret, auth: legacy.auth, next: { salt: toHex(salt), verifier: toHex(keys.verifier), encPriv, auth: keys.auth } }
}

/** Argon2id at the record's cost (libsodium's thread pool); a device that cannot allocate it gets a clear error. */
async function stretch (output: Uint8Array, salt: Uint8Array, user: UserRecord, trace: PhaseTrace): Promise<Awaited<ReturnType<typeof deriveLoginKeysV2>>> {
  try {
    return await trace.time('stretch', () => deriveLoginKeysV2(output, salt, user.argon))
  } catch (err) {
    throw SdkError.loginFailed(`Argon2id at the account's cost (${Math.round(user.argon.memlimit / 1048576)} MiB, ${user.argon.opslimit} passes) failed on this device`, err)
  }
}

/** A wrong password fails here, on the client: the X25519 secret's seal does not open. */
async function unseal (wrapKey: Uint8Array, encPriv: string, trace: PhaseTrace): Promise<Uint8Array> {
  try {
    return await trace.time('unseal', () => openSecret(wrapKey, encPriv))
  } catch {
    throw SdkError.wrongPassword()
  }
}

/** The panel says it takes a re-key to schedule 2 (`meta/panel.keySchedule`); an older panel does not. */
async function panelTakesRekey (reader: CatalogReader): Promise<boolean> {
  const meta = await reader.getMeta('panel').catch(() => null)
  return (meta?.keySchedule ?? 1) >= 2
}

function signRekey (next: NonNullable<OpenedAccount['next']>, oldAuth: KeyPair, challenge: Uint8Array, username: string, deviceId: string, user: UserRecord): Rekey {
  const fields = { salt: next.salt, verifier: next.verifier, authPub: toHex(next.auth.publicKey), encPriv: next.encPriv }
  const bytes = rekeySignedBytes(challenge, username, deviceId, fields, user.argon)
  return { keyVersion: 2, ...fields, oldSig: toHex(sign(bytes, oldAuth.secretKey)), newSig: toHex(sign(bytes, next.auth.secretKey)) }
}

/** After a refused session: does the replica (brought up to date, bounded) hold other keys than `used`? */
async function recordChanged (reader: CatalogReader, username: string, used: UserRecord): Promise<boolean> {
  await reader.update({ wait: true, timeoutMs: LOGIN_CATALOG_WAIT_MS }).catch(() => false)
  const now = await reader.getUser(username).catch(() => null)
  return now !== null && (now.authPub !== used.authPub || now.encPriv !== used.encPriv)
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

/**
 * The group records `user.groups` names (`grp/<id>`), read in parallel from the replica: with
 * the user record, all a login reads of the catalog (docs/architecture.md "Grants and the
 * catalog"). A group whose record cannot be read counts as absent (its channels are not
 * granted); the catalog being unreadable at all was already reported by the user record read.
 */
async function readGroups (reader: CatalogReader, user: UserRecord, trace: PhaseTrace): Promise<Record<string, GroupRecord | null>> {
  const ids = Object.keys(user.groups ?? {})
  if (ids.length === 0) return {}
  return await trace.time('group records', async () => Object.fromEntries(await Promise.all(ids.map(async (id) => [id, await reader.getGroup(id).catch(() => null)] as const))))
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

import sodium from 'sodium-native'
import { argon2id, DEFAULT_ARGON, validateArgonCost } from './argon.js'
import type { ArgonCost } from './argon.js'
import { assertBytesRange, assertString, concatBytes, fromHex, isPlainObject, toHex } from './bytes.js'
import { utf8Encode } from './encoding.js'
import { CryptoError } from './errors.js'
import { randomBytes } from './primitives.js'

// Escrow envelope for the panel identity keys (spec 1 "Authentication" point 5, POST
// /api/identity/escrow; "Admin CLI": export-escrow, verify-escrow). The passphrase goes through
// Argon2id to a 32-byte key; the secrets are sealed with XChaCha20-Poly1305-IETF and every
// cleartext field (v, kind, fingerprint, kdf) is bound as associated data.

/** Envelope format version (spec 1 "Authentication" point 5 / "Admin CLI" export-escrow). */
export const ESCROW_VERSION = 1
export const ESCROW_KIND = 'arus-escrow'
export const ESCROW_KDF_ALG = 'argon2id13'
/**
 * Highest cost an envelope may ask for (1 GiB, 16 passes): an envelope is read from a file,
 * and an edited one must not be able to stall or exhaust the machine that opens it.
 */
export const ESCROW_MAX_COST: Readonly<ArgonCost> = Object.freeze({ opslimit: 16, memlimit: 1024 * 1024 * 1024 })
/** Largest secret payload (64 KiB); identity keys are a few hundred bytes. */
export const ESCROW_MAX_SECRET_BYTES = 64 * 1024

const SALT_BYTES = sodium.crypto_pwhash_SALTBYTES
const NONCE_BYTES = sodium.crypto_aead_xchacha20poly1305_ietf_NPUBBYTES
const TAG_BYTES = sodium.crypto_aead_xchacha20poly1305_ietf_ABYTES
const FINGERPRINT_RE = /^[\x21-\x7e]{1,128}$/
const AD_PREFIX = utf8Encode('arus-escrow-ad\u0000')

/** The sealed identity-key envelope; every byte value is lowercase hex. */
export interface EscrowEnvelope {
  v: 1
  kind: 'arus-escrow'
  /** Cleartext identifier chosen by the caller (e.g. hex BLAKE2b of the panel public key): 1–128 printable ASCII characters. */
  fingerprint: string
  kdf: { alg: 'argon2id13', opslimit: number, memlimit: number, salt: string }
  nonce: string
  ciphertext: string
}

/** Options of {@link sealEscrow}. */
export interface SealEscrowOptions {
  /** Cleartext fingerprint stored in and authenticated with the envelope. */
  fingerprint: string
  /** Argon2id cost; default {@link DEFAULT_ARGON}; at most {@link ESCROW_MAX_COST}. */
  cost?: ArgonCost
}

/** Options of {@link openEscrow}. */
export interface OpenEscrowOptions {
  /** When set, an envelope with another fingerprint is refused before any decryption. */
  expectedFingerprint?: string
}

function checkFingerprint (value: unknown, fail: (rule: string) => CryptoError): string {
  if (typeof value !== 'string' || !FINGERPRINT_RE.test(value)) throw fail('fingerprint must be 1-128 printable ASCII characters')
  return value
}

function checkPassphrase (passphrase: unknown): Uint8Array {
  assertString('passphrase', passphrase)
  if (passphrase.length === 0) throw CryptoError.badInput('passphrase', 'must not be empty')
  return utf8Encode(passphrase, 'passphrase')
}

function associatedData (env: Pick<EscrowEnvelope, 'v' | 'kind' | 'fingerprint' | 'kdf'>): Uint8Array {
  const { alg, opslimit, memlimit, salt } = env.kdf
  return concatBytes(AD_PREFIX, utf8Encode(JSON.stringify([env.v, env.kind, env.fingerprint, alg, opslimit, memlimit, salt])))
}

/** Seals `secrets` under `passphrase` into a v1 envelope. */
export async function sealEscrow (secrets: Uint8Array, passphrase: string, options: SealEscrowOptions): Promise<EscrowEnvelope> {
  assertBytesRange('secrets', secrets, 1, ESCROW_MAX_SECRET_BYTES)
  const password = checkPassphrase(passphrase)
  if (!isPlainObject(options)) throw CryptoError.badType('options', 'an object { fingerprint, cost? }')
  const fingerprint = checkFingerprint(options.fingerprint, (rule) => CryptoError.badInput('options', rule))
  const cost = validateArgonCost(options.cost ?? DEFAULT_ARGON, ESCROW_MAX_COST)
  const salt = randomBytes(SALT_BYTES)
  const nonce = randomBytes(NONCE_BYTES)
  const header = {
    v: ESCROW_VERSION,
    kind: ESCROW_KIND,
    fingerprint,
    kdf: { alg: ESCROW_KDF_ALG, opslimit: cost.opslimit, memlimit: cost.memlimit, salt: toHex(salt) }
  } as const
  const key = await argon2id(password, salt, cost)
  const ciphertext = new Uint8Array(secrets.length + TAG_BYTES)
  sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(ciphertext, secrets, associatedData(header), null, nonce, key)
  key.fill(0)
  return { ...header, kdf: { ...header.kdf }, nonce: toHex(nonce), ciphertext: toHex(ciphertext) }
}

const ENVELOPE_KEYS = ['v', 'kind', 'fingerprint', 'kdf', 'nonce', 'ciphertext']
const KDF_KEYS = ['alg', 'opslimit', 'memlimit', 'salt']

function sameKeys (obj: Record<string, unknown>, keys: string[]): boolean {
  const own = Object.keys(obj)
  return own.length === keys.length && keys.every((k) => Object.hasOwn(obj, k))
}

function hexField (value: unknown, name: string, length?: number): Uint8Array {
  if (typeof value !== 'string') throw CryptoError.escrowMalformed(`${name} must be a hex string`)
  try {
    return fromHex(value, length)
  } catch {
    throw CryptoError.escrowMalformed(`${name} must be hex${length === undefined ? '' : ` of ${length} bytes`}`)
  }
}

/** Checks an untrusted value has exactly the v1 envelope shape; throws `CRYPTO_ESCROW_MALFORMED`. */
export function parseEscrowEnvelope (value: unknown): EscrowEnvelope {
  if (!isPlainObject(value) || !sameKeys(value, ENVELOPE_KEYS)) throw CryptoError.escrowMalformed(`must be an object with exactly ${ENVELOPE_KEYS.join(', ')}`)
  if (value.v !== ESCROW_VERSION) throw CryptoError.escrowMalformed(`v must be ${ESCROW_VERSION}`)
  if (value.kind !== ESCROW_KIND) throw CryptoError.escrowMalformed(`kind must be '${ESCROW_KIND}'`)
  const fingerprint = checkFingerprint(value.fingerprint, (rule) => CryptoError.escrowMalformed(rule))
  const kdf = value.kdf
  if (!isPlainObject(kdf) || !sameKeys(kdf, KDF_KEYS)) throw CryptoError.escrowMalformed(`kdf must be an object with exactly ${KDF_KEYS.join(', ')}`)
  if (kdf.alg !== ESCROW_KDF_ALG) throw CryptoError.escrowMalformed(`kdf.alg must be '${ESCROW_KDF_ALG}'`)
  let cost: ArgonCost
  try {
    cost = validateArgonCost({ opslimit: kdf.opslimit, memlimit: kdf.memlimit }, ESCROW_MAX_COST)
  } catch (err) {
    throw CryptoError.escrowMalformed((err as Error).message)
  }
  hexField(kdf.salt, 'kdf.salt', SALT_BYTES)
  hexField(value.nonce, 'nonce', NONCE_BYTES)
  const ct = hexField(value.ciphertext, 'ciphertext')
  if (ct.length <= TAG_BYTES || ct.length > ESCROW_MAX_SECRET_BYTES + TAG_BYTES) throw CryptoError.escrowMalformed('ciphertext has an impossible length')
  return {
    v: ESCROW_VERSION,
    kind: ESCROW_KIND,
    fingerprint,
    kdf: { alg: ESCROW_KDF_ALG, opslimit: cost.opslimit, memlimit: cost.memlimit, salt: kdf.salt as string },
    nonce: value.nonce as string,
    ciphertext: value.ciphertext as string
  }
}

/**
 * Opens an envelope (validated first). A wrong passphrase and any edit to the envelope both
 * throw `CRYPTO_ESCROW_OPEN_FAILED` — AEAD cannot tell them apart.
 */
export async function openEscrow (envelope: EscrowEnvelope, passphrase: string, options: OpenEscrowOptions = {}): Promise<Uint8Array> {
  const env = parseEscrowEnvelope(envelope)
  const password = checkPassphrase(passphrase)
  if (!isPlainObject(options)) throw CryptoError.badType('options', 'an object { expectedFingerprint? }')
  if (options.expectedFingerprint !== undefined) {
    assertString('expectedFingerprint', options.expectedFingerprint)
    if (options.expectedFingerprint !== env.fingerprint) throw CryptoError.escrowFingerprintMismatch()
  }
  const ciphertext = fromHex(env.ciphertext)
  const key = await argon2id(password, fromHex(env.kdf.salt), env.kdf)
  const secrets = new Uint8Array(ciphertext.length - TAG_BYTES)
  try {
    sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(secrets, null, ciphertext, associatedData(env), fromHex(env.nonce), key)
  } catch {
    throw CryptoError.escrowOpenFailed()
  } finally {
    key.fill(0)
  }
  return secrets
}

import b4a from 'b4a'
import Hypercore from 'hypercore'
import { CATALOG_MANIFEST_VERSION } from './constants.js'
import { CatalogError } from './errors.js'

/** An Ed25519 keypair in libsodium layout (secretKey = seed ‖ publicKey). */
export interface PanelKeyPair { publicKey: Uint8Array; secretKey: Uint8Array }

/** The hypercore manifest naming the panel key as the catalog's only signer. */
export function catalogManifest (panelPublicKey: Uint8Array): { version: number; signers: Array<{ publicKey: Uint8Array }> } {
  assertPublicKey(panelPublicKey)
  return { version: CATALOG_MANIFEST_VERSION, signers: [{ publicKey: panelPublicKey }] }
}

const keyOfManifest = (Hypercore as unknown as { key (manifest: unknown): Uint8Array }).key.bind(Hypercore)

/**
 * The catalog core's key for a panel public key. Hypercore 11 keys a core by the hash of
 * its manifest; the manifest names the panel key as the single Ed25519 signer, so this key
 * is a pure function of the panel key and every block a reader accepts is verified against
 * the panel key.
 */
export function catalogCoreKey (panelPublicKey: Uint8Array): Uint8Array {
  return keyOfManifest(catalogManifest(panelPublicKey))
}

export function assertPublicKey (key: unknown): asserts key is Uint8Array {
  if (!(key instanceof Uint8Array) || key.byteLength !== 32) throw CatalogError.invalidKeyPair('the panel public key must be 32 bytes')
}

// PKCS#8 DER header of a raw Ed25519 seed, so node:crypto can derive its public key.
const PKCS8_ED25519 = b4a.from('302e020100300506032b657004220420', 'hex')

/**
 * Checks types, lengths and that the secret key belongs to the public key (a mismatched
 * keypair would append blocks no reader accepts). Writer-only: node:crypto is loaded lazily
 * so the reader path stays free of Node built-ins.
 */
export async function assertKeyPair (keyPair: unknown): Promise<PanelKeyPair> {
  const kp = keyPair as Partial<PanelKeyPair> | null
  if (kp === null || typeof kp !== 'object') throw CatalogError.invalidKeyPair('keyPair must be { publicKey, secretKey }')
  assertPublicKey(kp.publicKey)
  const secretKey = kp.secretKey
  if (!(secretKey instanceof Uint8Array) || secretKey.byteLength !== 64) throw CatalogError.invalidKeyPair('the secret key must be 64 bytes (seed ‖ public key)')
  const { createPrivateKey, createPublicKey } = await import('node:crypto')
  const seed = secretKey.subarray(0, 32)
  const der = createPublicKey(createPrivateKey({ key: b4a.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' }))
    .export({ format: 'der', type: 'spki' })
  const derived = der.subarray(der.byteLength - 32)
  if (!b4a.equals(derived, kp.publicKey) || !b4a.equals(secretKey.subarray(32), kp.publicKey)) {
    throw CatalogError.invalidKeyPair('the secret key does not belong to the public key')
  }
  return { publicKey: kp.publicKey, secretKey }
}

import { existsSync } from 'node:fs'
import { z } from 'zod'
import { fromHex, generateSigningKeyPair, randomBytes, toHex } from '@arus/crypto'
import { readJsonFile, writeFileAtomic, writeJsonAtomic } from '@arus/service'
import { PanelError } from './errors.js'
import type { PanelPaths } from './paths.js'

/** Identity file format version (spec 1 "Other replicated and private data": panel-private keys). */
export const IDENTITY_VERSION = 1

const hex = (bytes: number) => z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`))

const IdentityFile = z.object({
  v: z.literal(IDENTITY_VERSION),
  publicKey: hex(32),
  secretKey: hex(64),
  oprfSeed: hex(32),
  legacyPublisherPublicKey: hex(32),
  legacyPublisherSecretKey: hex(64),
  reportsSalt: hex(32),
  createdAt: z.number()
})
type IdentityFile = z.infer<typeof IdentityFile>

/** The panel's secrets. The signing keypair is also the catalog core's keypair and the swarm identity. */
export interface PanelIdentity {
  publicKey: Uint8Array
  secretKey: Uint8Array
  oprfSeed: Uint8Array
  legacyPublisher: { publicKey: Uint8Array; secretKey: Uint8Array }
  reportsSalt: Uint8Array
}

export function createIdentity (): PanelIdentity {
  const signing = generateSigningKeyPair()
  return {
    publicKey: signing.publicKey,
    secretKey: signing.secretKey,
    oprfSeed: randomBytes(32),
    legacyPublisher: generateSigningKeyPair(),
    reportsSalt: randomBytes(32)
  }
}

export function identityExists (paths: PanelPaths): boolean {
  return existsSync(paths.identity)
}

export async function saveIdentity (paths: PanelPaths, id: PanelIdentity): Promise<void> {
  if (identityExists(paths)) throw new PanelError('PANEL_ALREADY_INITIALIZED')
  await writeJsonAtomic(paths.identity, encodeIdentity(id), { mode: 0o600 })
  await writeFileAtomic(paths.legacyPublisherKey, toHex(id.legacyPublisher.secretKey) + '\n', { mode: 0o600 })
}

export async function loadIdentity (paths: PanelPaths): Promise<PanelIdentity> {
  const file = await readJsonFile(paths.identity, IdentityFile, { missing: 'null' })
  if (!file) throw new PanelError('PANEL_NOT_INITIALIZED')
  return decodeIdentity(file)
}

export function encodeIdentity (id: PanelIdentity): IdentityFile {
  return {
    v: IDENTITY_VERSION,
    publicKey: toHex(id.publicKey),
    secretKey: toHex(id.secretKey),
    oprfSeed: toHex(id.oprfSeed),
    legacyPublisherPublicKey: toHex(id.legacyPublisher.publicKey),
    legacyPublisherSecretKey: toHex(id.legacyPublisher.secretKey),
    reportsSalt: toHex(id.reportsSalt),
    createdAt: Date.now()
  }
}

/** Parses identity JSON (from disk or a decrypted escrow); throws on any malformed field. */
export function decodeIdentity (value: unknown): PanelIdentity {
  const f = IdentityFile.parse(value)
  return {
    publicKey: fromHex(f.publicKey, 32),
    secretKey: fromHex(f.secretKey, 64),
    oprfSeed: fromHex(f.oprfSeed, 32),
    legacyPublisher: { publicKey: fromHex(f.legacyPublisherPublicKey, 32), secretKey: fromHex(f.legacyPublisherSecretKey, 64) },
    reportsSalt: fromHex(f.reportsSalt, 32)
  }
}

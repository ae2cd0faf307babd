import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { openEscrow, sealEscrow, sign, toHex, verify, type EscrowEnvelope } from '@arus/crypto'
import { ensurePrivateDir, writeFileAtomic } from '@arus/service'
import { PanelError } from '../errors.js'
import { decodeIdentity, encodeIdentity, loadIdentity, saveIdentity, type PanelIdentity } from '../identity.js'
import { panelPaths } from '../paths.js'

/**
 * Identity escrow (spec 1 Admin CLI export-escrow / verify-escrow, POST /api/identity/escrow):
 * the signing and OPRF keys encrypted under a typed passphrase, self-verified before anything
 * is written or returned.
 */

/** Shortest escrow passphrase accepted. */
export const ESCROW_PASSPHRASE_MIN = 8

/** A sealed identity, opened again and checked; nothing written yet. */
export interface SealedEscrow {
  /** The envelope to keep (what export-escrow writes, what POST /api/identity/escrow returns). */
  envelope: EscrowEnvelope
  /** The panel public key (hex), also the envelope's cleartext fingerprint. */
  fingerprint: string
  /** The passphrase KDF (`argon2id13`). */
  kdf: string
  verified: true
}

/**
 * Seals `identity` under `passphrase` and opens the result again to prove it (spec 1
 * "Authentication" 5: the output is decrypted and verified before anyone gets it). The one
 * function behind the CLI's export-escrow and the HTTP escrow route.
 */
export async function sealIdentityEscrow (identity: PanelIdentity, passphrase: string): Promise<SealedEscrow> {
  if (passphrase.length < ESCROW_PASSPHRASE_MIN) throw PanelError.invalid(`the escrow passphrase must be at least ${ESCROW_PASSPHRASE_MIN} characters`)
  const fingerprint = toHex(identity.publicKey)
  const envelope = await sealEscrow(new TextEncoder().encode(JSON.stringify(encodeIdentity(identity))), passphrase, { fingerprint })
  checkEscrow(await openEscrow(envelope, passphrase), fingerprint)
  return { envelope, fingerprint, kdf: envelope.kdf.alg, verified: true }
}

/** Suggested file name of an escrow: `arus-panel-escrow-<first 8 hex of the fingerprint>-<UTC date>.json`. */
export function escrowFilename (fingerprint: string, at: number): string {
  return `arus-panel-escrow-${fingerprint.slice(0, 8)}-${new Date(at).toISOString().slice(0, 10)}.json`
}

/** What an export wrote. */
export interface EscrowExport { file: string; fingerprint: string; kdf: string; verified: true }

/** {@link sealIdentityEscrow} on the identity under `dataDir`, written to `file` (0600, atomic). */
export async function exportEscrow (dataDir: string, passphrase: string, file: string): Promise<EscrowExport> {
  const sealed = await sealIdentityEscrow(await loadIdentity(panelPaths(dataDir)), passphrase)
  await writeFileAtomic(file, JSON.stringify(sealed.envelope, null, 2) + '\n', { mode: 0o600 })
  return { file, fingerprint: sealed.fingerprint, kdf: sealed.kdf, verified: true }
}

/** Reads an escrow file; anything but JSON is PANEL_ESCROW_UNREADABLE. */
export async function readEscrowFile (file: string): Promise<EscrowEnvelope> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as EscrowEnvelope
  } catch {
    throw new PanelError('PANEL_ESCROW_UNREADABLE', `${file} is not an escrow file (not JSON)`)
  }
}

/** What a verify found (and where it restored, if asked). */
export interface EscrowVerification { fingerprint: string; verified: true; restoredTo: string | null }

/** Opens an escrow and checks it; with `restoreTo`, writes the identity into that empty (or absent) DATA_DIR. */
export async function verifyEscrow (envelope: EscrowEnvelope, passphrase: string, restoreTo?: string): Promise<EscrowVerification> {
  const id = checkEscrow(await openEscrow(envelope, passphrase), envelope.fingerprint)
  if (restoreTo !== undefined) {
    if (existsSync(restoreTo) && (await readdir(restoreTo)).length > 0) throw new PanelError('PANEL_RESTORE_TARGET')
    const paths = panelPaths(restoreTo)
    await ensurePrivateDir(restoreTo)
    await ensurePrivateDir(paths.privateDir)
    await saveIdentity(paths, id)
  }
  return { fingerprint: envelope.fingerprint, verified: true, restoredTo: restoreTo ?? null }
}

/** The decrypted identity must parse, its key must sign, and its public key must equal the fingerprint. */
function checkEscrow (plain: Uint8Array, fingerprint: string): PanelIdentity {
  let id: PanelIdentity
  try { id = decodeIdentity(JSON.parse(new TextDecoder().decode(plain))) } catch { throw new PanelError('PANEL_ESCROW_MISMATCH') }
  const probe = new TextEncoder().encode('arus/escrow-check')
  if (toHex(id.publicKey) !== fingerprint || !verify(probe, sign(probe, id.secretKey), id.publicKey)) throw new PanelError('PANEL_ESCROW_MISMATCH')
  return id
}

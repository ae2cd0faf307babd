import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { openEscrow, sealEscrow, sign, toHex, verify, type EscrowEnvelope } from '@arus/crypto'
import { ensurePrivateDir, writeFileAtomic } from '@arus/service'
import { PanelError } from '../errors.js'
import { decodeIdentity, encodeIdentity, loadIdentity, saveIdentity, type PanelIdentity } from '../identity.js'
import { panelPaths } from '../paths.js'

/**
 * Identity escrow (spec 1 Admin CLI export-escrow / verify-escrow): the signing and OPRF keys
 * encrypted under a typed passphrase, self-verified before anything is written.
 */

/** Shortest escrow passphrase accepted. */
export const ESCROW_PASSPHRASE_MIN = 8

/** What an export wrote. */
export interface EscrowExport { file: string; fingerprint: string; kdf: string; verified: true }

/** Seals the identity under `passphrase`, opens it again to prove it, and writes it (0600, atomic). */
export async function exportEscrow (dataDir: string, passphrase: string, file: string): Promise<EscrowExport> {
  if (passphrase.length < ESCROW_PASSPHRASE_MIN) throw PanelError.invalid(`the escrow passphrase must be at least ${ESCROW_PASSPHRASE_MIN} characters`)
  const id = await loadIdentity(panelPaths(dataDir))
  const fingerprint = toHex(id.publicKey)
  const envelope = await sealEscrow(new TextEncoder().encode(JSON.stringify(encodeIdentity(id))), passphrase, { fingerprint })
  checkEscrow(await openEscrow(envelope, passphrase), fingerprint)
  await writeFileAtomic(file, JSON.stringify(envelope, null, 2) + '\n', { mode: 0o600 })
  return { file, fingerprint, kdf: envelope.kdf.alg, verified: true }
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

import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import type { Command } from 'commander'
import { openEscrow, pairingCode, sealEscrow, toHex, verify, sign, type EscrowEnvelope } from '@arus/crypto'
import { ensurePrivateDir, writeFileAtomic } from '@arus/service'
import { panelSettings } from '../config.js'
import { PanelError } from '../errors.js'
import { createIdentity, decodeIdentity, encodeIdentity, loadIdentity, saveIdentity } from '../identity.js'
import { openPanel } from '../open.js'
import { panelActivity } from '../audit.js'
import { panelPaths } from '../paths.js'
import { cliBase } from './context.js'
import { readSecretLine, type DaemonCli } from '@arus/service'

/** init, export-escrow, verify-escrow (spec 1 Admin CLI). */
export function identityCommands (program: Command, cli: DaemonCli): void {
  const { io, out } = cli
  program.command('init')
    .description('generate the panel identity (signing key, OPRF key); print the panel public key and pairing code')
    .action(async () => {
      const { config, log } = cliBase(io)
      const paths = panelPaths(config.DATA_DIR)
      await ensurePrivateDir(config.DATA_DIR)
      await ensurePrivateDir(paths.privateDir)
      const id = createIdentity()
      await saveIdentity(paths, id)
      const opened = await openPanel(config.DATA_DIR, panelSettings(config), { log, activity: panelActivity(log) })
      await opened.close()
      const panelKey = toHex(id.publicKey)
      const code = pairingCode(id.publicKey)
      out({ panelKey, pairingCode: code, legacyPublisherKeyFile: paths.legacyPublisherKey },
        `panel public key: ${panelKey}\npairing code:     ${code}\nlegacy publisher key (secret): ${paths.legacyPublisherKey}`)
    })

  program.command('export-escrow')
    .description('export the identity keys encrypted under a typed passphrase (self-verified before writing)')
    .option('--out <file>', 'output file', 'arus-panel-escrow.json')
    .action(async (opts: { out: string }) => {
      const { config } = cliBase(io)
      const id = await loadIdentity(panelPaths(config.DATA_DIR))
      const passphrase = await readSecretLine(io, 'escrow passphrase: ')
      if (passphrase.length < 8) throw PanelError.invalid('the escrow passphrase must be at least 8 characters')
      const secrets = new TextEncoder().encode(JSON.stringify(encodeIdentity(id)))
      const fingerprint = toHex(id.publicKey)
      const envelope = await sealEscrow(secrets, passphrase, { fingerprint })
      checkEscrow(await openEscrow(envelope, passphrase), fingerprint)
      await writeFileAtomic(opts.out, JSON.stringify(envelope, null, 2) + '\n', { mode: 0o600 })
      out({ file: opts.out, fingerprint, kdf: envelope.kdf.alg, verified: true }, `escrow written to ${opts.out} (fingerprint ${fingerprint}, verified)`)
    })

  program.command('verify-escrow <file>')
    .description('check an escrow file decrypts and matches its fingerprint; optionally restore it into an empty directory')
    .option('--restore-to <dir>', 'write the identity into this empty (or absent) DATA_DIR')
    .action(async (file: string, opts: { restoreTo?: string }) => {
      let envelope: EscrowEnvelope
      try { envelope = JSON.parse(await readFile(file, 'utf8')) as EscrowEnvelope } catch { throw new PanelError('PANEL_ESCROW_UNREADABLE', `${file} is not an escrow file (not JSON)`) }
      const passphrase = await readSecretLine(io, 'escrow passphrase: ')
      const id = checkEscrow(await openEscrow(envelope, passphrase), envelope.fingerprint)
      if (opts.restoreTo) {
        if (existsSync(opts.restoreTo) && (await readdir(opts.restoreTo)).length > 0) throw new PanelError('PANEL_RESTORE_TARGET')
        const paths = panelPaths(opts.restoreTo)
        await ensurePrivateDir(opts.restoreTo)
        await ensurePrivateDir(paths.privateDir)
        await saveIdentity(paths, id)
      }
      out({ fingerprint: envelope.fingerprint, verified: true, restoredTo: opts.restoreTo ?? null },
        `escrow OK: fingerprint ${envelope.fingerprint}${opts.restoreTo ? `, restored to ${opts.restoreTo}` : ''}`)
    })
}

/** The decrypted identity must parse, its key must sign, and its public key must equal the fingerprint. */
function checkEscrow (plain: Uint8Array, fingerprint: string) {
  let id
  try { id = decodeIdentity(JSON.parse(new TextDecoder().decode(plain))) } catch { throw new PanelError('PANEL_ESCROW_MISMATCH') }
  const probe = new TextEncoder().encode('arus/escrow-check')
  if (toHex(id.publicKey) !== fingerprint || !verify(probe, sign(probe, id.secretKey), id.publicKey)) throw new PanelError('PANEL_ESCROW_MISMATCH')
  return id
}

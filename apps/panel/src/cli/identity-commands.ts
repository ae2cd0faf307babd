import type { Command } from 'commander'
import { pairingCode, toHex } from '@arus/crypto'
import { ensurePrivateDir } from '@arus/service'
import { panelSettings } from '../config.js'
import { createIdentity, saveIdentity } from '../identity.js'
import { exportEscrow, readEscrowFile, verifyEscrow } from '../ops/escrow.js'
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
      const passphrase = await readSecretLine(io, 'escrow passphrase: ')
      const r = await exportEscrow(config.DATA_DIR, passphrase, opts.out)
      out(r, `escrow written to ${r.file} (fingerprint ${r.fingerprint}, verified)`)
    })

  program.command('verify-escrow <file>')
    .description('check an escrow file decrypts and matches its fingerprint; optionally restore it into an empty directory')
    .option('--restore-to <dir>', 'write the identity into this empty (or absent) DATA_DIR')
    .action(async (file: string, opts: { restoreTo?: string }) => {
      const envelope = await readEscrowFile(file)
      const passphrase = await readSecretLine(io, 'escrow passphrase: ')
      const r = await verifyEscrow(envelope, passphrase, opts.restoreTo)
      out(r, `escrow OK: fingerprint ${r.fingerprint}${r.restoredTo !== null ? `, restored to ${r.restoredTo}` : ''}`)
    })
}

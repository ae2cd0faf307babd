import { readFile, readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { normalizePairingCode, pairingCode, fromHex, sign, toHex } from '@arus/crypto'
import { encodeRegisterPayload } from '@arus/rpc'
import { createTestnet, spawnProcess, tmpDir, viewerLogin } from '@arus/testkit'
import { cli, cliJson, initPanel, linkToPanel, PANEL_BIN, panelEnv, spawnPanel } from './helpers.js'

describe('arus-panel as a process', () => {
  it('prints help with no command, and init prints the panel key and pairing code once', async (t) => {
    const help = spawnProcess(t, process.execPath, [PANEL_BIN])
    expect((await help.waitForExit(15_000)).code).toBe(0)
    expect(help.stdoutLines().join('\n')).toContain('Usage: arus-panel')

    const env = panelEnv(tmpDir(t))
    const init = spawnProcess(t, process.execPath, [PANEL_BIN, 'init'], { env })
    expect((await init.waitForExit(15_000)).code).toBe(0)
    const out = init.stdoutLines().join('\n')
    const key = /panel public key: ([0-9a-f]{64})/.exec(out)![1]!
    const code = /pairing code: +([A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4})/.exec(out)![1]!
    expect(code).toBe(pairingCode(fromHex(key, 32)))
    expect(normalizePairingCode(code.toLowerCase().replace(/-/g, ''))).toBe(code)

    const again = await cli(env, ['init'])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('PANEL_ALREADY_INITIALIZED')
    // Private files are 0600 in a 0700 directory.
    const priv = join(env.DATA_DIR!, 'private')
    expect((await stat(priv)).mode & 0o777).toBe(0o700)
    for (const f of await readdir(priv)) expect((await stat(join(priv, f))).mode & 0o777).toBe(0o600)
  })

  it('store commands fail with ELOCKED beside a running panel; registry commands still work', async (t) => {
    const testnet = await createTestnet(t)
    const env = panelEnv(tmpDir(t), { BOOTSTRAP: testnet.bootstrapString })
    await initPanel(env)
    await spawnPanel(t, env)
    const locked = spawnProcess(t, process.execPath, [PANEL_BIN, 'add-stream', 'x'], { env })
    expect((await locked.waitForExit(15_000)).code).toBe(1)
    expect(locked.stderrText()).toContain('ELOCKED')
    expect(await cliJson(env, ['add-publisher', 'site1'])).toMatchObject({ name: 'site1' })
    expect(await cliJson(env, ['add-admin', 'ops'], 'pw\n')).toMatchObject({ name: 'ops' })
    // A removal beside the running panel cannot read the store for its config snapshot: it
    // goes ahead and says so on stderr.
    const removed = await cli({ ...env, LOG_FORMAT: 'json' }, ['--json', 'remove-publisher', 'site1'])
    expect(JSON.parse(removed.stdout)).toEqual({ deleted: 'site1' })
    expect(removed.stderr).toContain('config.snapshot.skipped')
  })

  it('export-escrow self-verifies; verify-escrow checks it, refuses a wrong passphrase or edited fingerprint, and restores', async (t) => {
    const env = panelEnv(tmpDir(t))
    const { panelKey } = await initPanel(env)
    const file = join(tmpDir(t), 'escrow.json')
    const exported = await cliJson(env, ['export-escrow', '--out', file], 'correct horse battery\n')
    expect(exported).toMatchObject({ fingerprint: panelKey, verified: true })
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    const text = await readFile(file, 'utf8')
    const identity = JSON.parse(await readFile(join(env.DATA_DIR!, 'private', 'identity.json'), 'utf8'))
    expect(text).not.toContain(identity.secretKey)
    expect(text).not.toContain(identity.oprfSeed)

    expect(await cliJson(env, ['verify-escrow', file], 'correct horse battery\n')).toMatchObject({ verified: true, fingerprint: panelKey })
    const wrong = await cli(env, ['verify-escrow', file], 'wrong passphrase\n')
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain('CRYPTO_ESCROW')

    const edited = join(tmpDir(t), 'edited.json')
    await import('node:fs/promises').then((fs) => fs.writeFile(edited, text.replace(panelKey, 'ab'.repeat(32))))
    expect((await cli(env, ['verify-escrow', edited], 'correct horse battery\n')).code).toBe(1)

    const notJson = join(tmpDir(t), 'not.json')
    await import('node:fs/promises').then((fs) => fs.writeFile(notJson, 'hello'))
    expect((await cli(env, ['verify-escrow', notJson], 'x\n')).stderr).toContain('PANEL_ESCROW_UNREADABLE')

    const target = join(tmpDir(t), 'restored')
    await cliJson(env, ['verify-escrow', file, '--restore-to', target], 'correct horse battery\n')
    const restored = JSON.parse(await readFile(join(target, 'private', 'identity.json'), 'utf8'))
    expect(restored.secretKey).toBe(identity.secretKey)
    expect((await cli(env, ['verify-escrow', file, '--restore-to', env.DATA_DIR!], 'correct horse battery\n')).stderr).toContain('PANEL_RESTORE_TARGET')
  })

  it('never writes a secret to its logs', async (t) => {
    const testnet = await createTestnet(t)
    const env = panelEnv(tmpDir(t), { BOOTSTRAP: testnet.bootstrapString, LOG_LEVEL: 'debug' })
    const { panelKey } = await initPanel(env)
    const logs: string[] = []
    const run = async (args: string[], input = '') => {
      const r = await cli({ ...env, LOG_LEVEL: 'debug' }, args, input)
      logs.push(r.stderr)
      return r
    }
    await run(['create-user', 'alice'], 'alice-secret-pw\n')
    const stream = JSON.parse((await run(['--json', 'add-stream', 'news'])).stdout)
    await run(['grant', 'alice', 'news'])
    const pub = JSON.parse((await run(['--json', 'add-publisher', 'site1'])).stdout)
    await run(['add-admin', 'ops'], 'admin-secret-pw\n')
    const panel = await spawnPanel(t, env)
    const link = await linkToPanel(t, testnet, panelKey)
    const session = await viewerLogin(link.rpc, link.reader, { username: 'alice', password: 'alice-secret-pw' })
    const payload = encodeRegisterPayload({ streamId: 'news', publisher: 'site1', feedKey: 'cd'.repeat(32), isLive: true, key: stream.key, ts: Date.now() })
    await link.rpc.register({ payload, sig: toHex(sign(new TextEncoder().encode(payload), fromHex(pub.secretKey, 64))) })
    await panel.stop()
    logs.push(panel.stdoutLines().join('\n'), panel.stderrText())

    const identity = JSON.parse(await readFile(join(env.DATA_DIR!, 'private', 'identity.json'), 'utf8'))
    const secrets = [
      'alice-secret-pw', 'admin-secret-pw', stream.key, pub.secretKey, pub.secretKey.slice(0, 64), session.token,
      identity.secretKey, identity.secretKey.slice(0, 64), identity.oprfSeed, identity.legacyPublisherSecretKey, identity.reportsSalt
    ]
    const all = logs.join('\n')
    expect(all).toContain('register') // the logs are there and were captured
    for (const s of secrets) expect(all.includes(s), `secret leaked: ${s.slice(0, 6)}…`).toBe(false)
  }, 60_000)
})

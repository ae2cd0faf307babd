import { statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { randomBytes, toHex } from '@arus/crypto'
import { openFeedReader } from '@arus/feed'
import { createLogger } from '@arus/service'
import { createStore } from '@arus/swarm'
import { createTestnet, tmpDir, waitFor, withTimeout } from '@arus/testkit'
import { loadBroadcasterConfig } from '../src/config.js'
import { main as startDaemon } from '../src/main.js'
import { broadcasterEnv, cli, LIGHT } from './helpers.js'

describe('arus-broadcaster admin commands', () => {
  it('adds, lists, rotates and removes control admins; passwords come from stdin and never show', async (t) => {
    const env = broadcasterEnv(tmpDir(t, 'bc-cli-'))
    const added = await cli(env, ['--json', 'add-admin', 'alice'], 'correct horse\n')
    expect(added.code).toBe(0)
    expect(JSON.parse(added.stdout)).toMatchObject({ name: 'alice', tokenVersion: 0 })
    expect(statSync(join(env.DATA_DIR!, 'private', 'admins.json')).mode & 0o777).toBe(0o600)
    expect(statSync(join(env.DATA_DIR!, 'private')).mode & 0o777).toBe(0o700)

    const dup = await cli(env, ['add-admin', 'alice'], 'x\n')
    expect(dup).toMatchObject({ code: 1 })
    expect(dup.stderr).toContain('[SERVICE_ADMIN_EXISTS]')
    expect((await cli(env, ['add-admin', 'bob'], '')).stderr).toContain('[SERVICE_NO_PASSWORD]')
    expect((await cli(env, ['add-admin', 'bad name'], 'pw\n')).stderr).toContain('[SERVICE_VALIDATION_FAILED]')

    const rotated = await cli(env, ['--json', 'set-admin-password', 'alice'], 'battery staple\n')
    expect(JSON.parse(rotated.stdout)).toMatchObject({ name: 'alice', tokenVersion: 1 })
    const list = await cli(env, ['--json', 'list-admins'])
    expect(JSON.parse(list.stdout)).toEqual({ admins: [{ name: 'alice', tokenVersion: 1, createdAt: expect.any(Number) }] })
    for (const r of [added, rotated, list]) expect(r.stdout + r.stderr).not.toMatch(/correct horse|battery staple/)

    expect((await cli(env, ['remove-admin', 'alice'])).stdout).toContain('admin alice removed')
    expect((await cli(env, ['remove-admin', 'alice'])).stderr).toContain('[SERVICE_ADMIN_NOT_FOUND]')
    expect((await cli(env, ['list-admins'])).stdout).toContain('(no admins)')
  })

  it('refuses an invalid environment naming the variable, and exits 2 on a usage error', async (t) => {
    const env = broadcasterEnv(tmpDir(t, 'bc-cli-'), { SLATE_AFTER: '0', PUBLISHER_KEY: 'not-hex-secret' })
    const r = await cli(env, ['list-admins'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('[SERVICE_INVALID_CONFIG]')
    expect(r.stderr).toContain('SLATE_AFTER')
    expect(r.stderr).toContain('PUBLISHER_KEY')
    expect(r.stderr).not.toContain('not-hex-secret')
    expect((await cli(env, ['no-such-command'])).code).toBe(2)
    // A variable renamed when the control server moved onto the kit is named with its new name.
    const old = await cli(broadcasterEnv(tmpDir(t, 'bc-cli-'), { LOGIN_VERIFY_TIMEOUT_MS: '5000' }), ['list-admins'])
    expect(old.code).toBe(1)
    expect(old.stderr).toMatch(/\[SERVICE_INVALID_CONFIG\].*LOGIN_VERIFY_TIMEOUT_MS: renamed CONTROL_VERIFY_TIMEOUT_MS/)
  })
})

describe('arus-broadcaster attach-stream', () => {
  it("sets a stopped channel's content key to a panel stream's key from stdin; the feed is then encrypted with it; refused beside a running daemon and after the first feed", async (t) => {
    const testnet = await createTestnet(t)
    const env = broadcasterEnv(tmpDir(t, 'bc-attach-'), { BOOTSTRAP: testnet.bootstrapString, LOG_LEVEL: 'silent' })
    const feedKeys = async () => JSON.parse(await readFile(join(env.DATA_DIR!, 'private', 'feed-keys.json'), 'utf8')).channels
    const panelKey = toHex(randomBytes(32)) // what `arus-panel add-stream` prints
    let running = await startDaemon(loadBroadcasterConfig(env), createLogger({ name: 'test', level: 'silent' }))
    await running.manager.add({ id: 'att1', input: 'test', ...LIGHT })
    const own = (await feedKeys()).att1.key
    // The daemon holds the channels in memory: the command refuses, naming the control API.
    const locked = await cli(env, ['attach-stream', 'att1'], `${panelKey}\n`)
    expect([locked.code, locked.stderr]).toEqual([1, expect.stringContaining('[BROADCASTER_ELOCKED]')])
    expect((await feedKeys()).att1.key).toBe(own)
    await running.close()

    const attached = await cli(env, ['--json', 'attach-stream', 'att1'], `${panelKey.toUpperCase()}\n`)
    expect([attached.code, JSON.parse(attached.stdout)]).toEqual([0, { id: 'att1', changed: true }])
    expect((await feedKeys()).att1).toEqual({ key: panelKey, generation: 0, namespace: null, feedKey: null, fingerprint: null, retired: [] })
    expect(statSync(join(env.DATA_DIR!, 'private', 'feed-keys.json')).mode & 0o777).toBe(0o600)
    expect(attached.stdout + attached.stderr).not.toContain(panelKey)
    expect((await cli(env, ['attach-stream', 'att1'], `${panelKey}\n`)).stdout).toContain('channel att1 already uses that key')
    const bad = await cli(env, ['attach-stream', 'att1'], 'not-a-key-0123\n')
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('[SERVICE_VALIDATION_FAILED]')])
    expect(bad.stderr).not.toContain('not-a-key-0123')
    expect((await cli(env, ['attach-stream', 'nope'], `${panelKey}\n`)).stderr).toContain('[BROADCASTER_NOT_FOUND]')

    // The first start publishes under the attached key: a reader with it decodes the playlist.
    running = await startDaemon(loadBroadcasterConfig(env), createLogger({ name: 'test', level: 'silent' }))
    const started = await running.manager.start('att1')
    await waitFor(() => running.manager.get('att1').state === 'up', { timeoutMs: 20_000, message: 'att1 up' })
    await running.manager.stop('att1')
    await running.close()
    const idn = (await feedKeys()).att1
    expect(idn).toMatchObject({ key: panelKey, generation: 0, feedKey: started.feedKey })
    const read = async (key: string) => {
      const store = createStore(join(env.DATA_DIR!, 'store'))
      const reader = openFeedReader({ store: store.namespace(idn.namespace), feedKey: Buffer.from(idn.feedKey, 'hex'), encryptionKey: Buffer.from(key, 'hex') })
      try {
        return await withTimeout(reader.playlist({ timeoutMs: 5000 }), 8000, 'the playlist')
      } finally {
        await reader.close().catch(() => {})
        await store.close()
      }
    }
    expect((await read(panelKey)).segments.length).toBeGreaterThan(0)
    await expect(read(own)).rejects.toMatchObject({ code: 'FEED_DECRYPT_FAILED' })

    // A channel that published under a key keeps it.
    const refused = await cli(env, ['attach-stream', 'att1'], `${toHex(randomBytes(32))}\n`)
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining('[BROADCASTER_FEED_EXISTS]')])
    expect((await feedKeys()).att1.key).toBe(panelKey)
  }, 60_000)
})

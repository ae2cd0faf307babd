import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createStack, pendingTeardowns, tmpDir } from '@arus/testkit'

// The real daemons (built dist/) as processes: a panel and a broadcaster running ffmpeg on a
// local testnet, through their CLIs and HTTP APIs only.
describe('createStack', () => {
  it('starts a panel and a broadcaster, registers a channel, restarts the panel, and tears everything down', async () => {
    const before = pendingTeardowns()
    const stack = await createStack(undefined, { panel: { users: [{ name: 'alice', password: 'alice-pw' }] }, broadcasters: 1 })
    const { panel } = stack
    const bc = stack.broadcasters[0]!
    expect(panel.panelKey).toMatch(/^[0-9a-f]{64}$/)
    expect((await panel.api<{ admins: Array<{ name: string }> }>('GET', '/api/admins')).admins.map((a) => a.name)).toEqual(['admin'])

    const feedKey = await bc.channel('news', { title: 'News' })
    expect(feedKey).toMatch(/^[0-9a-f]{64}$/)
    expect((await bc.api<{ channels: Array<{ id: string; registered: boolean }> }>('GET', '/api/channels')).channels).toMatchObject([{ id: 'news', registered: true }])
    await panel.api('POST', '/api/users/alice/grants', { streamId: 'news' })

    // Store commands need the panel stopped; a restart moves the admin URL.
    const firstUrl = panel.adminUrl
    await panel.stop()
    expect(panel.proc).toBeNull()
    expect(await panel.cli<{ username: string }>(['create-user', 'bob'], 'bob-pw\n')).toMatchObject({ username: 'bob' })
    await Promise.all([panel.start(), panel.start()])
    expect(panel.adminUrl).not.toBe(firstUrl)
    expect((await panel.api<{ users: Array<{ username: string }> }>('GET', '/api/users')).users.map((u) => u.username).sort()).toEqual(['alice', 'bob'])

    const dirs = [panel.dataDir, bc.dataDir]
    await stack.close()
    expect(dirs.filter(existsSync)).toEqual([])
    expect(pendingTeardowns()).toBe(before)
  }, 120_000)

  it('runs the testnet as a process and writes every log into `logs`', async (t) => {
    const logs = join(tmpDir(t), 'logs')
    const stack = await createStack(t, { testnet: 'process', logs, panel: { adminApi: false } })
    expect(stack.testnet).toBeNull()
    expect(stack.testnetProc).not.toBeNull()
    expect(stack.panel.adminUrl).toBeNull()
    await stack.close()
    expect(readFileSync(join(logs, 'testnet.log'), 'utf8')).toMatch(/^BOOTSTRAP=/)
    expect(readFileSync(join(logs, 'panel.log'), 'utf8')).toContain('"event":"panel.ready"')
  }, 60_000)

  it('an abort during start-up stops what it started and rejects with the reason', async () => {
    const before = pendingTeardowns()
    const stop = new AbortController()
    const starting = createStack(undefined, { broadcasters: 1, signal: stop.signal })
    setTimeout(() => stop.abort(new Error('stop now')), 1500)
    await expect(starting).rejects.toThrow('stop now')
    expect(pendingTeardowns()).toBe(before)
  }, 60_000)
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlayer, loginWithRetry } from '@arus/sdk'
import { cleanupAll, createStack, decodeWithFfmpeg, tmpDir, waitFor, type Stack } from '@arus/testkit'

// Issue 13 (packages), against the built panel and broadcaster and a real SDK player: a
// package edited with the CLI beside the running panel reaches its holder (the panel picks
// the registry edit up), and the viewer plays the channel at its next login.

const ctx = { onTestFinished: () => {} }
let stack: Stack

beforeAll(async () => {
  stack = await createStack(ctx, { panel: { users: [{ name: 'alice', password: 'alice-pw' }] }, broadcasters: 1 })
}, 120_000)

afterAll(async () => { await cleanupAll() }, 60_000)

describe('packages end to end', () => {
  it('a package member edit made with the CLI beside the running panel reaches the viewer at its next login', async (t) => {
    const { panel } = stack
    const bc = stack.broadcasters[0]!
    await bc.channel('kids1', { title: 'Kids One', category: ['Kids'] })
    // The store is held by the running panel: the CLI edits the registry, the panel reconciles.
    const added = await panel.cli(['add-package', 'family', '--label', 'Family'])
    expect(added).toMatchObject({ name: 'family', members: [] })
    await panel.api('POST', '/api/users/alice/packages', { packages: ['family'] })
    expect((await panel.api('GET', '/api/users/alice')).grants).toEqual([])
    const edited = await panel.cli(['set-package', 'family', '--members', 'category:kids'])
    expect(edited).toMatchObject({ members: ['category:kids'], pending: expect.stringContaining('reconciles') })
    await waitFor(async () => (await panel.api('GET', '/api/users/alice')).grants.includes('kids1'), { timeoutMs: 20_000, message: 'registry edit picked up' })
    expect((await panel.api('GET', '/api/packages/family')).channels).toEqual(['kids1'])
    expect((await panel.call('POST', '/api/users/alice/packages', { packages: ['nope'] })).status).toBe(404)
    const storeBound = await panel.cli(['set-user-packages', 'alice', 'family']).catch((e: Error) => e)
    expect(String(storeBound)).toContain('PANEL_ELOCKED')

    const player = createPlayer({ panelPubKey: panel.panelKey, storeDir: tmpDir(t, 'arus-viewer-'), swarm: { bootstrap: stack.testnet!.bootstrap } })
    t.onTestFinished(() => player.stop())
    await player.connect()
    await loginWithRetry(player, 'alice', 'alice-pw', { attempts: 40, delayMs: 500 })
    const { url } = await player.resolve('kids1')
    const decoded = await decodeWithFfmpeg(url, 2, { timeoutMs: 60_000 })
    expect(decoded.code, decoded.stderr).toBe(0)
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanupAll } from '@arus/testkit'
import { api, connectAndLogin, createStack, newPlayer, panel, runPanel, type Stack } from './helpers/stack.js'

// vodProvider() (issue 13 item 3): null until the operator configures the VOD provider
// settings; a change reaches the app at its next login, not before.
const ctx = { onTestFinished: () => {} }
let stack: Stack

beforeAll(async () => {
  stack = await createStack(ctx)
  await panel(stack, ['create-user', 'alice'], 'alice-pw\n')
  await runPanel(ctx, stack)
}, 60_000)

afterAll(async () => { await cleanupAll() }, 60_000)

describe('vodProvider', () => {
  it('is null until configured, and follows the settings at the next login', async (t) => {
    const player = newPlayer(t, stack)
    await connectAndLogin(player, 'alice', 'alice-pw')
    expect(player.vodProvider()).toBeNull()
    await api(stack, 'PATCH', '/api/vod-config', { enabled: true, apiBase: 'https://vod.example/api', service: 'acme', sources: { movies: 'm1' }, params: { lang: 'en' } })
    expect(player.vodProvider()).toBeNull()
    await connectAndLogin(player, 'alice', 'alice-pw')
    const vod = player.vodProvider()
    expect(vod).toEqual({ enabled: true, apiBase: 'https://vod.example/api', service: 'acme', sources: { movies: 'm1' }, params: { lang: 'en' } })
    vod!.params.lang = 'changed by the app'
    expect(player.vodProvider()?.params.lang).toBe('en')
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomBytes, toHex } from '@arus/crypto'
import { cleanupAll } from '@arus/testkit'
import { api, createStack, newPlayer, panel, runPanel, type Stack } from './helpers/stack.js'

// Issue 21: a login called right after connect() waits for the panel link itself (bounded by
// 10 s) instead of throwing 'not connected to panel' at once; every step is in lastLogin.
const ctx = { onTestFinished: () => {} }
let stack: Stack

beforeAll(async () => {
  stack = await createStack(ctx)
  await panel(stack, ['create-user', 'alice'], 'alice-pw\n')
  await runPanel(ctx, stack)
  await api(stack, 'POST', '/api/streams', { id: 'one', title: 'One' })
  await api(stack, 'POST', '/api/users/alice/grants', { streamId: 'one' })
}, 90_000)

afterAll(async () => { await cleanupAll() }, 60_000)

describe('the first login', () => {
  it('right after connect() succeeds on the first call, and records its phases', async (t) => {
    const player = newPlayer(t, stack)
    await player.connect()
    expect(player.diagnostics().lastLogin).toBeNull()
    const list = await player.login('alice', 'alice-pw')
    expect(list.map((i) => i.id)).toEqual(['one'])
    const last = player.diagnostics().lastLogin!
    const names = last.phases.map((p) => p.name)
    for (const step of ['panel link', 'device key', 'blind', 'catalog update', 'user record', 'hello', 'proof of work', 'oprf call', 'unseal', 'session call', 'enrollment wait', 'grants', 'display list']) {
      expect(names, step).toContain(step)
    }
    // No Argon2id on the client (docs/architecture.md "The first login"), so no kdf call either.
    expect(names).not.toContain('argon2id')
    expect(names).not.toContain('kdf call')
    const at = (name: string) => last.phases.find((p) => p.name === name)!
    // The replica read does not wait for the link or the OPRF round.
    expect(at('catalog update').startMs).toBeLessThan(at('hello').startMs)
    // The blinding needs only the password: done before the link is used, not after the proof of work.
    expect(at('blind').startMs + at('blind').ms).toBeLessThanOrEqual(at('hello').startMs + 0.2)
    expect(at('user record').startMs).toBeGreaterThanOrEqual(at('catalog update').startMs + at('catalog update').ms - 0.2)
    // The unseal needs the OPRF output and the record; a wrong password fails there, before the session call.
    expect(at('unseal').startMs).toBeGreaterThanOrEqual(at('oprf call').startMs + at('oprf call').ms - 0.2)
    expect(at('unseal').startMs).toBeGreaterThanOrEqual(at('user record').startMs + at('user record').ms - 0.2)
    expect(at('session call').startMs).toBeGreaterThanOrEqual(at('unseal').startMs + at('unseal').ms - 0.2)
    expect(at('display list').startMs).toBeGreaterThanOrEqual(at('session call').startMs + at('session call').ms - 0.2)
    for (const p of last.phases) expect(p.startMs + p.ms).toBeLessThanOrEqual(last.totalMs + 0.2)
    expect(player.session()?.username).toBe('alice')
    expect(await player.sessionLive()).toBe(true)
  })

  it('a wrong password still fails on the client, after the link came up', async (t) => {
    const player = newPlayer(t, stack)
    await player.connect()
    await expect(player.login('alice', 'not-the-password')).rejects.toMatchObject({ code: 'SDK_WRONG_PASSWORD' })
    expect(player.diagnostics().lastLogin).toBeNull()
  })

  it("throws 'not connected to panel' once the link wait is over (no panel behind the key)", async (t) => {
    const player = newPlayer(t, stack, { panelPubKey: toHex(randomBytes(32)) })
    await player.connect()
    const t0 = Date.now()
    await expect(player.login('alice', 'alice-pw')).rejects.toMatchObject({ code: 'SDK_NOT_CONNECTED', message: 'not connected to panel' })
    const waited = Date.now() - t0
    expect(waited).toBeGreaterThanOrEqual(9_500)
    expect(waited).toBeLessThan(20_000)
  }, 30_000)

  it('a stop() during the link wait ends the login at once', async (t) => {
    const player = newPlayer(t, stack, { panelPubKey: toHex(randomBytes(32)) })
    await player.connect()
    const t0 = Date.now()
    const login = player.login('alice', 'alice-pw')
    const outcome = login.then(() => 'logged in', (err: { code?: string }) => err.code)
    await new Promise((resolve) => setTimeout(resolve, 300))
    await player.stop()
    expect(await outcome).toMatch(/^SDK_(NOT_CONNECTED|STOPPED)$/)
    expect(Date.now() - t0).toBeLessThan(5_000)
  })
})

import { describe, expect, it } from 'vitest'
import { tmpDir } from '@arus/testkit'
import { cli, cliJson, initPanel, panelEnv } from './helpers.js'

async function setup (t: { onTestFinished(fn: () => unknown): void }) {
  const env = panelEnv(tmpDir(t, 'panel-cli-users-'))
  await initPanel(env)
  return env
}

describe('arus-panel user commands', () => {
  it('create-user reads the password from stdin, refuses duplicates and bad names', async (t) => {
    const env = await setup(t)
    const u = await cliJson(env, ['create-user', 'alice'], 'pw-1\n')
    expect(u).toMatchObject({ username: 'alice', status: 'active', tokenVersion: 0, maxDevices: 5, grants: [] })
    expect(u).not.toHaveProperty('verifier')
    const dup = await cli(env, ['create-user', 'alice'], 'pw-2\n')
    expect(dup.code).toBe(1)
    expect(dup.stderr).toContain('PANEL_EXISTS')
    const bad = await cli(env, ['create-user', 'bad name'], 'pw\n')
    expect(bad.stderr).toContain('PANEL_INVALID_INPUT')
    const nopw = await cli(env, ['create-user', 'bob'], '')
    expect(nopw.stderr).toContain('SERVICE_NO_PASSWORD')
  })

  it('set-password bumps tokenVersion and keeps the grants (re-sealed to the new key)', async (t) => {
    const env = await setup(t)
    await cliJson(env, ['create-user', 'alice'], 'pw-1\n')
    await cliJson(env, ['add-stream', 'ch1'])
    await cliJson(env, ['grant', 'alice', 'ch1'])
    const before = await cliJson(env, ['list'])
    const after = await cliJson(env, ['set-password', 'alice'], 'pw-2\n')
    expect(after.tokenVersion).toBe(1)
    expect(after.grants).toEqual(['ch1'])
    expect(after.pub).not.toBe(before.users[0].pub)
  })

  it('set-status, set-max-devices and logout-all', async (t) => {
    const env = await setup(t)
    await cliJson(env, ['create-user', 'alice'], 'pw\n')
    expect(await cliJson(env, ['set-status', 'alice', 'disabled'])).toMatchObject({ status: 'disabled', tokenVersion: 1 })
    expect(await cliJson(env, ['set-status', 'alice', 'active'])).toMatchObject({ status: 'active', tokenVersion: 1 })
    expect((await cli(env, ['set-status', 'alice', 'maybe'])).stderr).toContain('SERVICE_VALIDATION_FAILED')
    expect(await cliJson(env, ['set-max-devices', 'alice', '3'])).toMatchObject({ maxDevices: 3, tokenVersion: 2 })
    expect((await cli(env, ['set-max-devices', 'alice', '0'])).code).toBe(1)
    expect(await cliJson(env, ['logout-all', 'alice'])).toMatchObject({ tokenVersion: 3 })
  })

  it('grant and revoke seal and drop the stream key; unknown streams are refused', async (t) => {
    const env = await setup(t)
    await cliJson(env, ['create-user', 'alice'], 'pw\n')
    await cliJson(env, ['add-stream', 'ch1'])
    expect(await cliJson(env, ['grant', 'alice', 'ch1'])).toEqual({ changed: true })
    expect(await cliJson(env, ['grant', 'alice', 'ch1'])).toEqual({ changed: false })
    expect((await cli(env, ['grant', 'alice', 'nope'])).stderr).toContain('PANEL_NOT_FOUND')
    expect(await cliJson(env, ['revoke', 'alice', 'ch1'])).toEqual({ changed: true, stillGranted: false, coveredBy: [] })
    expect((await cliJson(env, ['list'])).users[0].grants).toEqual([])
  })

  it('list-devices, logout-device (unknown device refused) and delete-user', async (t) => {
    const env = await setup(t)
    await cliJson(env, ['create-user', 'alice'], 'pw\n')
    expect(await cliJson(env, ['list-devices', 'alice'])).toEqual({ devices: [] })
    expect((await cli(env, ['list-devices', 'alice'])).stdout).toContain('(no devices)')
    expect((await cli(env, ['logout-device', 'alice', 'ab'.repeat(32)])).stderr).toContain('PANEL_NOT_FOUND')
    expect(await cliJson(env, ['delete-user', 'alice'])).toEqual({ deleted: 'alice' })
    expect((await cliJson(env, ['list'])).users).toEqual([])
    expect((await cli(env, ['delete-user', 'alice'])).stderr).toContain('PANEL_NOT_FOUND')
  })
})

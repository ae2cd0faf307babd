import { describe, expect, it } from 'vitest'
import { tmpDir } from '@arus/testkit'
import { cli, cliJson, initPanel, panelEnv } from './helpers.js'

async function setup (t: { onTestFinished(fn: () => unknown): void }) {
  const env = panelEnv(tmpDir(t, 'panel-cli-registry-'))
  await initPanel(env)
  return env
}

describe('arus-panel admin and publisher commands', () => {
  it('add-admin, list-admins, set-admin-password (bumps tokenVersion), remove-admin', async (t) => {
    const env = await setup(t)
    expect(await cliJson(env, ['add-admin', 'root'], 'admin-pw\n')).toMatchObject({ name: 'root', tokenVersion: 0 })
    expect((await cli(env, ['add-admin', 'root'], 'x\n')).stderr).toContain('SERVICE_ADMIN_EXISTS')
    expect((await cliJson(env, ['list-admins'])).admins.map((a: { name: string }) => a.name)).toEqual(['root'])
    expect(await cliJson(env, ['set-admin-password', 'root'], 'new-pw\n')).toMatchObject({ tokenVersion: 1 })
    expect(await cliJson(env, ['remove-admin', 'root'])).toEqual({ deleted: 'root' })
    expect(await cliJson(env, ['list-admins'])).toEqual({ admins: [] })
    // The panel is stopped: the removal took a config snapshot first.
    expect((await cliJson(env, ['config', 'list'])).snapshots.map((s: { reason: string }) => s.reason)).toEqual(['before-remove admin root'])
    expect((await cli(env, ['remove-admin', 'root'])).stderr).toContain('SERVICE_ADMIN_NOT_FOUND')
  })

  it('add-publisher prints the secret once; list never shows it; scopes, status and removal', async (t) => {
    const env = await setup(t)
    const p = await cliJson(env, ['add-publisher', 'site1', '--scopes', 'news*,sport-?'])
    expect(p.secretKey).toMatch(/^[0-9a-f]{128}$/)
    expect(p.scopes).toEqual(['news*', 'sport-?'])
    const list = await cliJson(env, ['list-publishers'])
    expect(list).toEqual({ publishers: [expect.objectContaining({ name: 'site1', status: 'active', scopes: ['news*', 'sport-?'] })] })
    expect(JSON.stringify(list)).not.toContain(p.secretKey)
    expect(JSON.stringify(list)).not.toContain(p.secretKey.slice(0, 64))
    expect((await cliJson(env, ['set-publisher-scopes', 'site1', 'movies.*'])).scopes).toEqual(['movies.*'])
    expect((await cli(env, ['set-publisher-scopes', 'site1', 'bad glob!'])).stderr).toContain('PANEL_INVALID_INPUT')
    expect((await cliJson(env, ['set-publisher-status', 'site1', 'revoked'])).status).toBe('revoked')
    expect((await cli(env, ['set-publisher-status', 'site1', 'gone'])).code).toBe(1)
    expect(await cliJson(env, ['remove-publisher', 'site1'])).toEqual({ deleted: 'site1' })
    expect((await cli(env, ['remove-publisher', 'site1'])).stderr).toContain('PANEL_NOT_FOUND')
    const human = await cli(env, ['add-publisher', 'site2'])
    expect(human.stdout).toMatch(/PUBLISHER_KEY=[0-9a-f]{128}/)
  })
})

import { describe, expect, it } from 'vitest'
import { tmpDir } from '@arus/testkit'
import { cli, cliJson, initPanel, panelEnv } from './helpers.js'
import { adminApi } from './http-helpers.js'

// The package commands with the panel stopped: the CLI holds the store and reconciles itself.
describe('arus-panel package commands', () => {
  it('add, set, show, list, set-user-packages and remove-package', async (t) => {
    const env = panelEnv(tmpDir(t, 'panel-cli-packages-'))
    await initPanel(env)
    await cliJson(env, ['add-stream', 'news', '--category', 'Info'])
    await cliJson(env, ['add-stream', 'tv.one'])
    expect(await cliJson(env, ['add-package', 'basic', '--members', 'tv.*', '--default'])).toMatchObject({ name: 'basic', channels: ['tv.one'], default: true })
    expect((await cli(env, ['add-package', 'basic'])).stderr).toContain('PANEL_EXISTS')
    expect((await cli(env, ['add-package', 'bad name'])).stderr).toContain('SERVICE_VALIDATION_FAILED')
    // Default package: a new user holds it from creation.
    expect(await cliJson(env, ['create-user', 'ann'], 'pw\n')).toMatchObject({ packages: ['basic'], grants: ['tv.one'] })
    expect(await cliJson(env, ['set-package', 'basic', '--members', 'tv.*,category:info'])).toMatchObject({ channels: ['news', 'tv.one'], holders: 1 })
    expect((await cliJson(env, ['list'])).users[0].grants).toEqual(['news', 'tv.one'])
    expect((await cliJson(env, ['list-packages'])).packages.map((p: { name: string; holders: number }) => [p.name, p.holders])).toEqual([['basic', 1]])
    expect((await cli(env, ['show-package', 'basic'])).stdout).toContain('news, tv.one')
    expect(await cliJson(env, ['set-user-packages', 'ann', ''])).toMatchObject({ packages: [], grants: [] })
    expect(await cliJson(env, ['set-user-packages', 'ann', 'basic'])).toMatchObject({ packages: ['basic'], grants: ['news', 'tv.one'] })
    expect(await cliJson(env, ['remove-package', 'basic'])).toEqual({ deleted: 'basic' })
    expect((await cliJson(env, ['list'])).users[0].grants).toEqual([])
    expect((await cli(env, ['remove-package', 'basic'])).stderr).toContain('PANEL_NOT_FOUND')
  })
})

// `list` and GET /api/users are one code path (spec 1 "What the service does" 7): the CLI
// shows the provenance the registry holds, not every grant as manual.
describe('arus-panel list', () => {
  it('shows each user\'s packages and manual grants exactly as GET /api/users does', async (t) => {
    const env = panelEnv(tmpDir(t, 'panel-cli-list-'))
    const { panelKey } = await initPanel(env)
    await cliJson(env, ['add-stream', 'tv.one'])
    await cliJson(env, ['add-stream', 'news'])
    await cliJson(env, ['add-package', 'basic', '--members', 'tv.*', '--default'])
    await cliJson(env, ['create-user', 'ann'], 'pw\n')
    await cliJson(env, ['grant', 'ann', 'news'])
    const listed = await cliJson(env, ['list'])
    expect(listed.users).toEqual([expect.objectContaining({ username: 'ann', packages: ['basic'], manualGrants: ['news'], grants: ['news', 'tv.one'] })])
    expect((await cli(env, ['list'])).stdout).toContain('ann  active  packages: basic  grants: news,tv.one')
    const a = await adminApi(t, { dataDir: env.DATA_DIR!, panelKey })
    expect((await a.call('GET', '/api/users')).body.users).toEqual(listed.users)
  })
})

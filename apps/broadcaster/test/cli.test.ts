import { statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tmpDir } from '@arus/testkit'
import { broadcasterEnv, cli } from './helpers.js'

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

import { copyFileSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { generateSigningKeyPair, TEST_ARGON } from '@arus/crypto'
import {
  adminCommands, buildControlServer, controlEnv, controlSettings, createActivity, createAdminRegistry, createDaemonProgram,
  createMetricsRegistry, loadConfig, adminAuthEnv, runCommandLine, type AdminRegistry, type CliIO
} from '@arus/service'
import { tmpDir } from '@arus/testkit'
import { z } from 'zod'
import { bearer, logSink } from './http-helpers.js'

// The kit's one admin registry, its routes and its CLI commands (issue 12, item 1), and the
// admins files both daemons wrote before the kit owned them (fixtures made by those copies).

const FIXTURES = new URL('./fixtures/', import.meta.url)

interface Made { registry: AdminRegistry; path: string; records: () => Array<Record<string, any>>; destructive: string[] }

function makeRegistry (t: { onTestFinished(fn: () => unknown): void }, fixture?: string): Made {
  const dir = tmpDir(t)
  const path = join(dir, 'admins.json')
  if (fixture !== undefined) copyFileSync(new URL(fixture, FIXTURES), path)
  const { log, records } = logSink()
  const destructive: string[] = []
  const registry = createAdminRegistry(
    { activity: createActivity(log), beforeDestructive: async (reason) => { destructive.push(reason) } },
    { path, argon: TEST_ARGON }
  )
  return { registry, path, records, destructive }
}

async function serve (t: { onTestFinished(fn: () => unknown): void }, registry: AdminRegistry) {
  const { log } = logSink()
  const app = buildControlServer({
    log,
    info: { title: 'admins test', version: '1' },
    metrics: createMetricsRegistry(),
    admins: registry,
    auth: { keys: generateSigningKeyPair(), lockout: { threshold: 50, windowSeconds: 60 } }
  })
  t.onTestFinished(() => app.close())
  const login = async (username: string, password: string) => {
    const res = await app.inject({ method: 'POST', url: '/api/login', payload: { username, password } })
    return { status: res.statusCode, token: (res.json() as { token?: string }).token }
  }
  return { app, login }
}

describe('admins files written before the kit', () => {
  it.for([
    ['admins-panel-v1.json', [['root', 'panel-admin-pw', 0], ['ops', 'panel-ops-pw2', 1]]],
    ['admins-broadcaster-v1.json', [['op', 'bc-admin-pw', 0]]]
  ] as const)('%s loads, and its admins log in with their passwords', async ([fixture, admins], t) => {
    const m = makeRegistry(t, fixture)
    const before = readFileSync(m.path, 'utf8')
    const expected = admins.map(([n, , tv]) => [n, tv]).sort((a, b) => String(a[0]).localeCompare(String(b[0])))
    expect((await m.registry.list()).map((a) => [a.name, a.tokenVersion])).toEqual(expected)
    const s = await serve(t, m.registry)
    for (const [name, password] of admins) {
      expect((await s.login(name, password)).status).toBe(200)
      expect((await s.login(name, `${password}x`)).status).toBe(401)
    }
    // Reading and logging in never rewrite the file.
    expect(readFileSync(m.path, 'utf8')).toBe(before)
  })
})

describe('createAdminRegistry', () => {
  it('writes the file only when it changes, 0600, and audits every change to the activity sink', async (t) => {
    const m = makeRegistry(t)
    await m.registry.add({ name: 'root', password: 'first-pw' })
    const bytes = readFileSync(m.path, 'utf8')
    expect(statSync(m.path).mode & 0o777).toBe(0o600)
    const mtime = statSync(m.path).mtimeMs
    await expect(m.registry.add({ name: 'root', password: 'other' })).rejects.toMatchObject({ code: 'SERVICE_ADMIN_EXISTS', status: 409 })
    await expect(m.registry.remove('nobody')).rejects.toMatchObject({ code: 'SERVICE_ADMIN_NOT_FOUND', status: 404 })
    await expect(m.registry.setPassword('nobody', 'x')).rejects.toMatchObject({ code: 'SERVICE_ADMIN_NOT_FOUND' })
    await m.registry.list()
    expect(readFileSync(m.path, 'utf8')).toBe(bytes)
    expect(statSync(m.path).mtimeMs).toBe(mtime)

    const rotated = await m.registry.setPassword('root', 'second-pw')
    expect(rotated.tokenVersion).toBe(1)
    expect(readFileSync(m.path, 'utf8')).not.toBe(bytes)
    await m.registry.remove('root')
    expect(m.destructive).toEqual(['remove admin root'])
    expect(await m.registry.count()).toBe(0)

    const events = m.records().filter((r) => typeof r.event === 'string' && r.event.startsWith('admin.'))
    expect(events.map((r) => [r.event, r.admin])).toEqual([['admin.added', 'root'], ['admin.password', 'root'], ['admin.removed', 'root']])
    const logged = JSON.stringify(m.records())
    for (const secret of ['first-pw', 'second-pw']) expect(logged).not.toContain(secret)
  })

  it('the auth gate keeps the parsed file, and sees a rewrite by another process at once', async (t) => {
    const m = makeRegistry(t)
    await m.registry.add({ name: 'root', password: 'root-pw-1' })
    expect(await m.registry.currentTokenVersion('root')).toBe(0)
    // Another registry on the same file stands for the CLI in another process.
    const other = createAdminRegistry({ activity: createActivity(logSink().log) }, { path: m.path, argon: TEST_ARGON })
    await other.setPassword('root', 'root-pw-2')
    expect(await m.registry.currentTokenVersion('root')).toBe(1)
    await other.remove('root')
    expect(await m.registry.currentTokenVersion('root')).toBeNull()
    await other.add({ name: 'ops', password: 'ops-pw-1' })
    expect(await m.registry.currentTokenVersion('ops')).toBe(0)
    expect(await m.registry.currentTokenVersion('ops')).toBe(0)
  })

  it('refuses a bad name or an empty password with a validation error naming the field', async (t) => {
    const m = makeRegistry(t)
    await expect(m.registry.add({ name: '../x', password: 'pw' })).rejects.toMatchObject({ code: 'SERVICE_VALIDATION_FAILED', status: 400 })
    await expect(m.registry.add({ name: 'ok', password: '' })).rejects.toMatchObject({ code: 'SERVICE_VALIDATION_FAILED' })
    expect(await m.registry.count()).toBe(0)
  })
})

describe('adminRoutes (mounted by buildControlServer with an admin registry)', () => {
  it('lists as {admins}, creates with 201, rotates (ending sessions) and deletes as {deleted}', async (t) => {
    const m = makeRegistry(t)
    await m.registry.add({ name: 'root', password: 'root-pw' })
    const s = await serve(t, m.registry)
    const root = (await s.login('root', 'root-pw')).token!
    const call = async (method: 'GET' | 'POST' | 'DELETE', url: string, token: string, payload?: unknown) => {
      const res = await s.app.inject({ method, url, headers: bearer(token), ...(payload === undefined ? {} : { payload }) })
      return { status: res.statusCode, body: res.json() as any }
    }
    expect(await call('GET', '/api/admins', root)).toMatchObject({ status: 200, body: { admins: [{ name: 'root', tokenVersion: 0 }] } })
    expect(await call('POST', '/api/admins', root, { name: 'ops', password: 'ops-pw' })).toMatchObject({ status: 201, body: { name: 'ops', tokenVersion: 0 } })
    expect((await call('POST', '/api/admins', root, { name: 'ops', password: 'x' })).body.error.code).toBe('SERVICE_ADMIN_EXISTS')
    const ops = (await s.login('ops', 'ops-pw')).token!
    expect(await call('POST', '/api/admins/ops/password', root, { password: 'ops-pw2' })).toMatchObject({ status: 200, body: { name: 'ops', tokenVersion: 1 } })
    expect((await call('GET', '/api/admins', ops)).status).toBe(401)
    expect(await call('DELETE', '/api/admins/ops', root)).toEqual({ status: 200, body: { deleted: 'ops' } })
    expect((await call('DELETE', '/api/admins/ops', root)).body.error.code).toBe('SERVICE_ADMIN_NOT_FOUND')
    expect(JSON.stringify((await call('GET', '/api/admins', root)).body)).not.toMatch(/verifier|salt/)
  })
})

/** A CLI io whose stdin holds `input` and whose output is captured. */
function io (input = ''): CliIO & { out: () => string; err: () => string } {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  const outChunks: string[] = []
  const errChunks: string[] = []
  stdout.on('data', (c) => outChunks.push(String(c)))
  stderr.on('data', (c) => errChunks.push(String(c)))
  const stdin = new PassThrough()
  stdin.end(input)
  return { stdout, stderr, stdin, env: {}, out: () => outChunks.join(''), err: () => errChunks.join('') }
}

async function runAdminCli (registry: AdminRegistry, argv: string[], input = '') {
  const cliIo = io(input)
  const { program, cli } = createDaemonProgram({ name: 'arus-test', description: 'test', io: cliIo, run: async () => { throw new Error('not in this test') } })
  adminCommands(program, cli, () => registry)
  const code = await runCommandLine(() => program.parseAsync(['node', 'arus-test', ...argv]), cliIo)
  return { code, out: cliIo.out(), err: cliIo.err() }
}

describe('adminCommands on createDaemonProgram', () => {
  it('add-admin, list-admins, set-admin-password and remove-admin (passwords from stdin, never argv)', async (t) => {
    const m = makeRegistry(t)
    expect(await runAdminCli(m.registry, ['--json', 'add-admin', 'root'], 'cli-pw\n')).toMatchObject({ code: 0 })
    expect(JSON.parse((await runAdminCli(m.registry, ['--json', 'list-admins'])).out)).toEqual({ admins: [expect.objectContaining({ name: 'root', tokenVersion: 0 })] })
    expect(JSON.parse((await runAdminCli(m.registry, ['--json', 'set-admin-password', 'root'], 'cli-pw2\n')).out)).toMatchObject({ name: 'root', tokenVersion: 1 })
    const s = await serve(t, m.registry)
    expect((await s.login('root', 'cli-pw2')).status).toBe(200)
    expect(JSON.parse((await runAdminCli(m.registry, ['--json', 'remove-admin', 'root'])).out)).toEqual({ deleted: 'root' })
    expect((await runAdminCli(m.registry, ['list-admins'])).out.trim()).toBe('(no admins)')
  })

  it('an empty password is SERVICE_NO_PASSWORD (exit 1), an unknown admin SERVICE_ADMIN_NOT_FOUND, a bad command exit 2', async (t) => {
    const m = makeRegistry(t)
    expect(await runAdminCli(m.registry, ['add-admin', 'root'], '\n')).toMatchObject({ code: 1, err: expect.stringContaining('[SERVICE_NO_PASSWORD]') })
    expect(await runAdminCli(m.registry, ['remove-admin', 'ghost'])).toMatchObject({ code: 1, err: expect.stringContaining('[SERVICE_ADMIN_NOT_FOUND]') })
    expect((await runAdminCli(m.registry, ['no-such-command'])).code).toBe(2)
    expect(await m.registry.count()).toBe(0)
  })
})

describe('controlEnv', () => {
  const schema = (prefix: 'ADMIN' | 'CONTROL') => z.object({ ...controlEnv(prefix, { port: 3210, what: 'API' }), ...adminAuthEnv })

  it('gives ADMIN_* and CONTROL_* the same settings and defaults', () => {
    const admin = controlSettings(loadConfig(schema('ADMIN'), {}) as Record<string, unknown>, 'ADMIN')
    const control = controlSettings(loadConfig(schema('CONTROL'), {}) as Record<string, unknown>, 'CONTROL')
    expect(admin).toEqual(control)
    expect(admin).toMatchObject({ enabled: false, host: '127.0.0.1', port: 3210, sessionTtlMs: 12 * 3_600_000, verifyTimeoutMs: 30_000, trustProxy: false })
    expect(controlSettings(loadConfig(schema('CONTROL'), { CONTROL_ENABLED: '1', CONTROL_PORT: '0', CONTROL_VERIFY_TIMEOUT_MS: '500' }) as Record<string, unknown>, 'CONTROL'))
      .toMatchObject({ enabled: true, port: 0, verifyTimeoutMs: 500 })
  })

  it('refuses a non-loopback host, naming the variable with its prefix', () => {
    expect(() => loadConfig(schema('CONTROL'), { CONTROL_HOST: '0.0.0.0' })).toThrow(/CONTROL_HOST/)
    expect(() => loadConfig(schema('ADMIN'), { ADMIN_SESSION_TTL_HOURS: 'soon' })).toThrow(/ADMIN_SESSION_TTL_HOURS/)
  })
})

import { createSocket } from 'node:dgram'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger, routeTable } from '@arus/service'
import { cleanupAll, createTestnet, tmpDir, waitFor } from '@arus/testkit'
import { loadBroadcasterConfig } from '../src/config.js'
import { main as startBroadcaster, type RunningBroadcaster } from '../src/main.js'
import { broadcasterEnv, cli, LIGHT } from './helpers.js'

// The control API in-process (app.inject, no sockets for requests), on a broadcaster built by
// the real composition root: a local testnet, no panel (registration is covered by live.test.ts).

let running: RunningBroadcaster
let app: FastifyInstance
let token: string
let dataDir: string
let udpPort: number
const SLOW = { ARGON2_MEM_KIB: '65536', ARGON2_OPS: '3' } // ~0.1 s per verification, so two logins overlap

async function login (username: string, password: string, remoteAddress = '127.0.0.1') {
  return app.inject({ method: 'POST', url: '/api/login', payload: { username, password }, remoteAddress })
}

const auth = () => ({ authorization: `Bearer ${token}` })
const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
  app.inject({ method, url, headers: auth(), ...(payload !== undefined ? { payload: payload as object } : {}) })

beforeAll(async () => {
  const testnet = await createTestnet()
  dataDir = tmpDir(undefined, 'bc-api-')
  udpPort = await new Promise<number>((resolve) => {
    const sock = createSocket('udp4').bind(0, '127.0.0.1', () => { const p = sock.address().port; sock.close(() => resolve(p)) })
  })
  const env = broadcasterEnv(dataDir, {
    BOOTSTRAP: testnet.bootstrapString, CONTROL_ENABLED: '1', CONTROL_PORT: '0', LOCKOUT_THRESHOLD: '3', LOG_LEVEL: 'warn',
    // The legacy env channel: a UDP push listener (an idle ffmpeg until a publisher sends).
    STREAM_ID: 'env1', INPUT: JSON.stringify({ kind: 'udp', port: udpPort }), TITLE: 'Env One', CATEGORY: 'News,Local'
  })
  for (const name of ['alice', 'locked-out']) expect((await cli(env, ['add-admin', name], 'pw-' + name + '\n')).code).toBe(0)
  expect((await cli({ ...env, ...SLOW }, ['add-admin', 'slow'], 'pw-slow\n')).code).toBe(0)
  running = await startBroadcaster(loadBroadcasterConfig(env), createLogger({ name: 'test', level: 'silent' }))
  app = running.control!
  const r = await login('alice', 'pw-alice')
  expect(r.statusCode).toBe(200)
  token = r.json().token
}, 60_000)

afterAll(async () => {
  await running?.close()
  await cleanupAll()
}, 30_000)

describe('control API', () => {
  it('requires an admin token on every route but /healthz and /metrics (and the login itself)', async () => {
    const table = routeTable(app)
    const open = table.filter((r) => !r.auth).map((r) => `${r.method} ${r.url}`)
    expect(open.sort()).toEqual(['GET /healthz', 'GET /metrics', 'POST /api/login'])
    const gated = table.filter((r) => r.auth)
    expect(gated.length).toBeGreaterThan(15)
    for (const r of gated) {
      const url = r.url.replace(/:[a-z]+/g, 'x')
      for (const headers of [{}, { authorization: 'Bearer not-a-token' }, { authorization: `Bearer ${token.slice(0, -4)}AAAA` }]) {
        const res = await app.inject({ method: r.method, url, headers })
        expect(res.statusCode, `${r.method} ${r.url}`).toBe(401)
        expect(res.json().error.code).toBe('SERVICE_UNAUTHORIZED')
      }
    }
    const health = await waitFor(async () => {
      const r = await app.inject({ method: 'GET', url: '/healthz' })
      return r.statusCode === 200 && r.json().resuming === false ? r : null
    }, { timeoutMs: 20_000, message: 'boot resume done' })
    expect(health.json()).toMatchObject({ up: true, resuming: false, resumed: 1, total: 1, failed: 0, channels: 1 })
    // The UI's static files carry no data: they load without a token, then call the API with one.
    const ui = await app.inject({ method: 'GET', url: '/' })
    expect(ui.statusCode).toBe(200)
    expect(ui.body).toContain('<script src="app.js"></script>')
    expect((await app.inject({ method: 'GET', url: '/app.js' })).body).toContain('WAITING FOR PUBLISHER')
    const metrics = await app.inject({ method: 'GET', url: '/metrics' })
    expect(metrics.statusCode).toBe(200)
    expect(metrics.body).toContain('arus_broadcaster_channels{state="up"}')
    expect(metrics.body).toContain('arus_broadcaster_resume_total')
    expect(metrics.body).toContain('arus_broadcaster_incidents{kind="slate-on"}')
  })

  it('locks a name out after LOCKOUT_THRESHOLD failures, even with the right password', async () => {
    for (let i = 0; i < 3; i++) expect((await login('locked-out', 'wrong', '127.0.0.9')).statusCode).toBe(401)
    const r = await login('locked-out', 'pw-locked-out', '127.0.0.10')
    expect(r.statusCode).toBe(429)
    expect(r.json()).toMatchObject({ error: { code: 'SERVICE_LOCKED' } })
    expect(r.json().retryAfter).toBeGreaterThan(0)
  })

  it('answers a login that arrives during another verification with 503 at once', async () => {
    const [a, b] = await Promise.all([login('slow', 'pw-slow'), login('slow', 'pw-slow')])
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 503])
    expect([a, b].find((r) => r.statusCode === 503)!.json().error.code).toBe('SERVICE_VERIFY_BUSY')
  })

  it('parses a stringified input or transcode back, and refuses one that does not parse with 400', async () => {
    const bad = await api('POST', '/api/channels', { id: 'bad1', input: '{"kind":"pull","url":' })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().error.code).toBe('BROADCASTER_INVALID_INPUT')
    const badT = await api('POST', '/api/channels', { id: 'bad2', input: 'test', transcode: '{width: 320}' })
    expect(badT.statusCode).toBe(400)
    expect((await api('GET', '/api/channels/bad1')).statusCode).toBe(404)

    const ok = await api('POST', '/api/channels', { id: 'str1', input: JSON.stringify({ kind: 'pull', url: 'http://127.0.0.1:9/x.m3u8' }), transcode: '{"width":320,"height":180}' })
    expect(ok.statusCode).toBe(201)
    expect(ok.json()).toMatchObject({ input: { kind: 'pull', url: 'http://127.0.0.1:9/x.m3u8', fallbacks: [] }, transcode: { width: 320, height: 180 } })
    const patched = await api('PATCH', '/api/channels/str1', { input: '{"kind":"file"' })
    expect(patched.statusCode).toBe(400)
    expect((await api('GET', '/api/channels/str1')).json().input.kind).toBe('pull')
    expect((await api('PATCH', '/api/channels/str1', { transcode: null })).json().transcode).toBeNull()
    expect((await api('POST', '/api/channels', { id: 'x', input: 'test', color: 'red' })).statusCode).toBe(400)
  })

  it('refuses to delete a running channel, and rotate outside disk mode', async () => {
    expect((await api('POST', '/api/channels', { id: 'run1', input: 'test', ...LIGHT })).statusCode).toBe(201)
    const started = await api('POST', '/api/channels/run1/start')
    expect(started.statusCode).toBe(200)
    expect(started.json()).toMatchObject({ running: true, desiredRunning: true })
    const del = await api('DELETE', '/api/channels/run1')
    expect(del.statusCode).toBe(409)
    expect(del.json().error.code).toBe('BROADCASTER_CHANNEL_RUNNING')
    await waitFor(async () => (await api('GET', '/api/channels/run1')).json().state === 'up', { timeoutMs: 20_000, message: 'run1 up' })
    const logs = (await api('GET', '/api/channels/run1/logs?lines=400')).json()
    expect(logs).toMatchObject({ running: true, state: 'up', restarts: 0 })
    expect(logs.lines.some((l: { line: string }) => l.line.includes('libx264'))).toBe(true)
    expect((await api('POST', '/api/channels/run1/stop')).json()).toMatchObject({ running: false, state: 'stopped', desiredRunning: false })
    const gone = await api('DELETE', '/api/channels/run1')
    expect(gone.statusCode).toBe(200)
    expect(gone.json()).toEqual({ deleted: 'run1' })
    // A config snapshot was taken first (none for the refused delete above).
    expect((await api('GET', '/api/config/snapshots')).json().snapshots.filter((s: { reason: string }) => s.reason === 'before-delete channel run1')).toHaveLength(1)
    expect((await api('GET', '/api/channels/run1')).statusCode).toBe(404)

    expect((await api('POST', '/api/channels', { id: 'ram1', input: 'test', buffer: 'ram' })).statusCode).toBe(201)
    const rot = await api('POST', '/api/channels/ram1/rotate')
    expect(rot.statusCode).toBe(409)
    expect(rot.json().error.code).toBe('BROADCASTER_ROTATE_NOT_DISK')
    const stopped = await api('POST', '/api/channels/str1/rotate')
    expect(stopped.statusCode).toBe(409)
    expect(stopped.json().error.code).toBe('BROADCASTER_CHANNEL_STOPPED')
  }, 40_000)

  it('manages admins; a password rotation ends that admin\'s sessions', async () => {
    expect((await api('POST', '/api/admins', { name: 'bob', password: 'pw-bob' })).statusCode).toBe(201)
    const bobToken = (await login('bob', 'pw-bob')).json().token
    const asBob = () => app.inject({ method: 'GET', url: '/api/status', headers: { authorization: `Bearer ${bobToken}` } })
    expect((await asBob()).statusCode).toBe(200)
    expect((await api('POST', '/api/admins/bob/password', { password: 'pw-bob-2' })).json()).toMatchObject({ name: 'bob', tokenVersion: 1 })
    expect((await asBob()).statusCode).toBe(401)
    expect((await api('GET', '/api/admins')).json().admins.map((a: { name: string }) => a.name)).toEqual(['alice', 'bob', 'locked-out', 'slow'])
    expect((await api('DELETE', '/api/admins/bob')).json()).toEqual({ deleted: 'bob' })
    expect((await api('DELETE', '/api/admins/bob')).json().error.code).toBe('SERVICE_ADMIN_NOT_FOUND')
    expect((await api('GET', '/api/config/snapshots')).json().snapshots.map((s: { reason: string }) => s.reason)).toContain('before-remove admin bob')
  })

  it('creates the legacy env channel at boot, in the legacy root store, and keeps it running', async () => {
    const env1 = (await api('GET', '/api/channels/env1')).json()
    expect(env1).toMatchObject({
      title: 'Env One', category: ['News', 'Local'], legacy: true, desiredRunning: true, running: true, state: 'waiting-input',
      input: { kind: 'udp', port: udpPort }, ingest: { pushUrl: `udp://127.0.0.1:${udpPort}` }, generation: 0
    })
    const identity = JSON.parse(await readFile(join(dataDir, 'private', 'feed-keys.json'), 'utf8')).channels.env1
    expect(identity).toMatchObject({ namespace: '', generation: 0, feedKey: env1.feedKey })
  })

  it('caps ?lines of the channel logs at 400 instead of refusing a larger count', async () => {
    const all = await api('GET', '/api/channels/env1/logs?lines=400')
    expect(all.statusCode).toBe(200)
    for (const n of ['401', '100000']) {
      const r = await api('GET', `/api/channels/env1/logs?lines=${n}`)
      expect(r.statusCode).toBe(200)
      expect(r.json()).toMatchObject({ running: true, lines: expect.any(Array) })
      expect(r.json().lines.length).toBeLessThanOrEqual(400)
    }
    for (const bad of ['0', '-3', 'x']) expect((await api('GET', `/api/channels/env1/logs?lines=${bad}`)).statusCode).toBe(400)
  })

  it('reports status and capabilities', async () => {
    expect((await api('GET', '/api/status')).json()).toMatchObject({ running: 1, total: 3, panel: { configured: false, connected: false }, resume: { resumed: 1 } })
    const caps = (await api('GET', '/api/capabilities')).json()
    expect(caps.encoders.libx264).toEqual({ listed: true, verified: true })
    expect(caps.encoders.aac).toEqual({ listed: true, verified: true })
    for (const p of ['file', 'http', 'hls', 'rtmp', 'srt', 'udp', 'tcp']) expect(caps.protocols[p], p).toEqual({ listed: true, verified: true })
    expect(caps.protocols.https).toMatchObject({ listed: true, verified: false })
  }, 40_000)

  // Last: it stops env1.
  it("attaches a stopped, never-started channel to a panel stream's key; refuses a running channel and one that already published", async () => {
    const key = 'ab'.repeat(32)
    const attach = (id: string, body: unknown) => api('POST', `/api/channels/${id}/attach`, body)
    const first = await attach('str1', { key: key.toUpperCase() })
    expect([first.statusCode, first.json()]).toEqual([200, { id: 'str1', changed: true }])
    const identity = async (id: string) => JSON.parse(await readFile(join(dataDir, 'private', 'feed-keys.json'), 'utf8')).channels[id]
    expect(await identity('str1')).toEqual({ key, generation: 0, namespace: null, feedKey: null, fingerprint: null, retired: [] })
    expect((await attach('str1', { key })).json()).toEqual({ id: 'str1', changed: false })
    for (const body of [{ key: 'ab'.repeat(31) }, { key, extra: 1 }, {}]) {
      const bad = await attach('str1', body)
      expect([bad.statusCode, bad.json().error.code], JSON.stringify(body)).toEqual([400, 'SERVICE_VALIDATION_FAILED'])
    }
    expect((await attach('nope', { key })).json().error.code).toBe('BROADCASTER_NOT_FOUND')
    const running = await attach('env1', { key })
    expect([running.statusCode, running.json().error.code]).toEqual([409, 'BROADCASTER_CHANNEL_RUNNING'])
    expect((await api('POST', '/api/channels/env1/stop')).statusCode).toBe(200)
    const published = await attach('env1', { key })
    expect([published.statusCode, published.json().error.code]).toEqual([409, 'BROADCASTER_FEED_EXISTS'])
    expect((await identity('env1')).key).not.toBe(key)
  })
})

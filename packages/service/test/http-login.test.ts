import { performance } from 'node:perf_hooks'
import { describe, expect, it } from 'vitest'
import { blake2b256, computeVerifier, newSalt, TEST_ARGON, verifyToken } from '@arus/crypto'
import { createLockout, createVerifyWorker, listenControlServer, type AdminVerifier } from '@arus/service'
import { testAdmins, testServer } from './http-helpers.js'

const utf8 = (s: string) => new TextEncoder().encode(s)

describe('POST /api/login', () => {
  it('issues an admin token signed by the service key with the admin tokenVersion and the TTL', async (t) => {
    const now = 1_800_000_000_000
    const s = await testServer(t, { auth: { now: () => now, sessionTtlMs: 3_600_000 } })
    s.admins.bump('root')
    const r = await s.login()
    expect(r.statusCode).toBe(200)
    expect(r.body.expiresAt).toBe(now + 3_600_000)
    expect(verifyToken(r.body.token, s.keys.publicKey, { now })).toEqual({ typ: 'admin', sub: 'root', tv: 1, iat: now, exp: now + 3_600_000 })
    const m = await s.app.inject({ url: '/metrics' })
    expect(m.body).toMatch(/arus_admin_logins_total\{result="ok"\} 1/)
  })

  it('answers a wrong password and an unknown name alike (401), running a decoy verification for the unknown name', async (t) => {
    const verifier = createVerifyWorker({ decoyCost: TEST_ARGON })
    t.onTestFinished(() => verifier.close())
    const s = await testServer(t, { auth: { verifier } })
    const wrong = await s.login('root', 'nope')
    const unknown = await s.login('ghost', 'nope')
    expect(wrong).toEqual({ statusCode: 401, body: { error: { code: 'SERVICE_BAD_CREDENTIALS', message: 'unknown name or wrong password' } } })
    expect(unknown).toEqual(wrong)
    expect(verifier.stats()).toMatchObject({ started: 2, completed: 2 })
    const logs = s.records().filter((r) => r.event === 'admin.login')
    expect(logs.map((r) => r.result)).toEqual(['failed', 'failed'])
    expect(JSON.stringify(s.records())).not.toContain('nope')
  })

  it('refuses a body that is not {username, password}', async (t) => {
    const s = await testServer(t)
    const r = await s.app.inject({ method: 'POST', url: '/api/login', payload: { username: 'root' } })
    expect([r.statusCode, r.json().error.code]).toEqual([400, 'SERVICE_VALIDATION_FAILED'])
  })
})

describe('login lockout', () => {
  it('locks a name after LOCKOUT_THRESHOLD attempts, from any address, until the window passes', async (t) => {
    let clock = 1_000_000
    const s = await testServer(t, { auth: { lockout: { threshold: 3, windowSeconds: 900 }, now: () => clock } })
    for (let i = 0; i < 3; i++) expect((await s.login('root', `bad-${i}`, `10.0.0.${i + 1}`)).statusCode).toBe(401)
    const locked = await s.app.inject({ method: 'POST', url: '/api/login', payload: { username: 'root', password: 'root-pw' }, remoteAddress: '10.0.0.9' })
    expect(locked.statusCode).toBe(429)
    expect(locked.json()).toEqual({ error: { code: 'SERVICE_LOCKED', message: 'too many login attempts; retry after 900 s' }, retryAfter: 900 })
    expect(locked.headers['retry-after']).toBe('900')
    clock += 600_000
    expect((await s.login('root', 'root-pw', '10.0.0.9')).body.retryAfter).toBe(300)
    clock += 300_000
    expect((await s.login('root', 'root-pw', '10.0.0.9')).statusCode).toBe(200)
  })

  it('locks a client address across names, and a success resets the count', async (t) => {
    const s = await testServer(t, { auth: { lockout: { threshold: 3, windowSeconds: 60 } } })
    await s.admins.add('ops', 'ops-pw')
    expect((await s.login('root', 'bad', '10.1.1.1')).statusCode).toBe(401)
    expect((await s.login('ops', 'bad', '10.1.1.1')).statusCode).toBe(401)
    expect((await s.login('ops', 'ops-pw', '10.1.1.1')).statusCode).toBe(200) // resets name and address
    for (const name of ['a', 'b', 'c']) expect((await s.login(name, 'x', '10.1.1.1')).statusCode).toBe(401)
    expect((await s.login('root', 'root-pw', '10.1.1.1')).statusCode).toBe(429)
    expect((await s.login('root', 'root-pw', '10.1.1.2')).statusCode).toBe(200)
  })

  it('createLockout reports the longest wait among locked keys', () => {
    let clock = 0
    const l = createLockout({ threshold: 1, windowSeconds: 10, now: () => clock })
    l.hit(['a'])
    clock = 4000
    l.hit(['b'])
    expect(l.retryAfter(['a', 'b'])).toBe(10)
    expect(l.retryAfter(['a'])).toBe(6)
    l.reset(['b'])
    expect(l.retryAfter(['b'])).toBe(0)
  })
})

describe('verify worker', () => {
  it('computes the same Argon2id verifier as @arus/crypto, in a worker thread', async (t) => {
    const w = createVerifyWorker()
    t.onTestFinished(() => w.close())
    const salt = newSalt()
    const input = blake2b256(utf8('pw'))
    const cost = { opslimit: 2, memlimit: 1024 * 1024 }
    const verifier = await computeVerifier(input, salt, cost)
    expect(await w.verify({ input, salt, cost, verifier })).toBe(true)
    expect(await w.verify({ input: blake2b256(utf8('pw2')), salt, cost, verifier })).toBe(false)
    expect(w.stats()).toMatchObject({ started: 2, completed: 2, busy: 0, timedOut: 0, replaced: 0 })
    expect(w.stats().threadId).toBeGreaterThan(0)
    await expect(w.verify({ input, salt, cost: { opslimit: 0, memlimit: 1 }, verifier })).rejects.toMatchObject({ code: 'CRYPTO_BAD_ARGON_COST' })
  })

  it('50 concurrent logins: exactly one verification runs, 49 get 503 at once, /healthz stays fast', async (t) => {
    const verifier = createVerifyWorker()
    t.onTestFinished(() => verifier.close())
    const admins = testAdmins()
    // A heavy recorded cost (256 MiB) so the verification is still running while /healthz is timed.
    await admins.add('root', 'root-pw', { opslimit: 3, memlimit: 256 * 1024 * 1024 })
    let release!: () => void
    const gate = new Promise<void>((resolve) => { release = resolve })
    let prepared = 0
    const verifierInput = async (name: string, pw: string): Promise<AdminVerifier | null> => {
      prepared++
      await gate // hold the slot until every other login has been answered
      return admins.verifierInput(name, pw)
    }
    const s = await testServer(t, { auth: { verifier, verifierInput } })
    const url = await listenControlServer(s.app, { host: '127.0.0.1', port: 0 })
    const post = () => fetch(`${url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'root', password: 'root-pw' }) })
    const started = performance.now()
    const all = Array.from({ length: 50 }, () => post().then(async (r) => ({ status: r.status, body: await r.json() as any, ms: performance.now() - started })))
    const first = all.shift()!
    const refused = await Promise.all(all)
    expect(refused.map((r) => r.status)).toEqual(Array(49).fill(503))
    expect(new Set(refused.map((r) => r.body.error.code))).toEqual(new Set(['SERVICE_VERIFY_BUSY']))
    expect(prepared).toBe(1)
    release()
    const verifyStart = performance.now()
    // While Argon2id (256 MiB) runs in the worker, the main loop keeps answering.
    const health: number[] = []
    while (verifier.stats().completed === 0 && health.length < 5000) {
      const t0 = performance.now()
      expect((await fetch(`${url}/healthz`)).status).toBe(200)
      health.push(performance.now() - t0)
    }
    const ok = await first
    const verifyMs = performance.now() - verifyStart
    expect(ok.status).toBe(200)
    expect(verifier.stats()).toMatchObject({ started: 1, completed: 1, busy: 49 })
    // Several /healthz answers within one verification, none as slow as the verification
    // itself: the main loop was never blocked by it (bounds relative, so load cannot flake them).
    expect(health.length).toBeGreaterThanOrEqual(3)
    const worst = Math.max(...health)
    expect(worst).toBeLessThan(verifyMs)
    const m = (await s.app.inject({ url: '/metrics' })).body
    expect(m).toMatch(/arus_admin_logins_total\{result="busy"\} 49/)
    const sorted = [...health].sort((a, b) => a - b)
    console.log(`[bench] kit login flood: 49 refusals within ${Math.max(...refused.map((r) => r.ms)).toFixed(1)} ms; verification ${verifyMs.toFixed(0)} ms; /healthz meanwhile n=${health.length} p50 ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)} / max ${worst.toFixed(1)} ms`)
  })

  it('abandons a verification past its budget with 503, replaces the worker, and verifies again at once', async (t) => {
    const verifier = createVerifyWorker({ timeoutMs: 250 })
    t.onTestFinished(() => verifier.close())
    const s = await testServer(t, { auth: { verifier } })
    await s.admins.add('slow', 'slow-pw', { opslimit: 8, memlimit: 256 * 1024 * 1024 }) // over a second here; root's 8 KiB cost is far under the budget
    expect((await s.login()).statusCode).toBe(200) // spawns the first worker
    const before = verifier.stats().threadId
    const slow = await s.login('slow', 'slow-pw')
    expect(slow).toEqual({ statusCode: 503, body: { error: { code: 'SERVICE_VERIFY_TIMEOUT', message: 'password verification exceeded 250 ms' } } })
    expect(verifier.stats()).toMatchObject({ timedOut: 1, replaced: 1 })
    expect(verifier.stats().threadId).not.toBe(before)
    expect(verifier.running).toBe(false)
    expect((await s.login()).statusCode).toBe(200)
    expect((await s.app.inject({ url: '/metrics' })).body).toMatch(/arus_admin_logins_total\{result="timeout"\} 1/)
  })

  it('close() ends the worker and later verifications are refused', async () => {
    const w = createVerifyWorker()
    await w.close()
    await w.close()
    await expect(w.verify({ input: new Uint8Array(32), salt: new Uint8Array(16), cost: TEST_ARGON, verifier: new Uint8Array(32) })).rejects.toMatchObject({ code: 'SERVICE_INTERNAL' })
    expect(() => createVerifyWorker({ timeoutMs: 0 })).toThrow(/timeoutMs/)
  })
})

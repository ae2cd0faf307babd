import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARUS_BINS, cleanupAll, collectSecrets, createStack, envSecrets, findSecrets, runBin, startReseller, tmpDir, type ResellerHandle, type Stack } from '@arus/testkit'

// The reseller's boundaries against the built processes: an invalid environment aborts boot
// naming the variable (never echoing a secret); the client-address allowlist and the proxied
// address (lockout keyed on it, spoofed entries ignored); export-only config routes;
// malformed requests never crash it; and no secret — passwords, verifiers, the panel password,
// the webhook secret, the signing key — appears in its log, its answers or its snapshots.

const ctx = { onTestFinished: () => {} }
let stack: Stack
let reseller: ResellerHandle
const SECRET = 'whsec-boundaries-0123456789'

beforeAll(async () => {
  stack = await createStack(ctx, {})
  reseller = await startReseller(ctx, {
    panel: stack.panel,
    env: { TRUST_PROXY_HEADER: 'x-forwarded-for', CLIENT_ALLOWLIST: '203.0.113.0/24,2001:db8::/32', LOCKOUT_THRESHOLD: '3', WEBHOOK_SECRET: SECRET }
  })
}, 120_000)

afterAll(async () => { await cleanupAll() }, 60_000)

async function fromAddress (path: string, xff: string | null, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(reseller.url + path, {
    method: init.method ?? 'GET',
    headers: { ...(xff !== null ? { 'x-forwarded-for': xff } : {}), ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    signal: AbortSignal.timeout(10_000)
  })
  const text = await res.text()
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text }
}

describe('reseller boundaries', () => {
  it('an invalid environment aborts boot naming the variable, without echoing a secret', async (t) => {
    const dir = tmpDir(t, 'arus-res-env-')
    const theme = join(dir, 'theme.json')
    await writeFile(theme, '{"accent":"red"}')
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ CLIENT_ALLOWLIST: '10.0.0.0/33' }, /CLIENT_ALLOWLIST/],
      [{ CLIENT_ALLOWLIST: 'example.com' }, /CLIENT_ALLOWLIST/],
      [{ TRUST_PROXY_HEADER: 'x forwarded' }, /TRUST_PROXY_HEADER/],
      [{ WEBHOOK_SECRET: 'short-one' }, /WEBHOOK_SECRET/],
      [{ DAYS_PER_MONTH: '0' }, /DAYS_PER_MONTH/],
      [{ BRAND_LOGIN_STYLE: 'neon' }, /BRAND_LOGIN_STYLE/],
      [{ BRAND_THEME_FILE: theme }, /BRAND_THEME_FILE/],
      [{ BRAND_LOGO_FILE: theme }, /BRAND_LOGO_FILE/],
      [{ BRAND_FAVICON_FILE: join(dir, 'missing.ico') }, /BRAND_FAVICON_FILE/],
      [{ CONTROL_HOST: '0.0.0.0' }, /CONTROL_HOST/],
      [{ PANEL_ADMIN_URL: 'ftp://panel' }, /PANEL_ADMIN_URL/]
    ]
    for (const [env, name] of cases) {
      const r = await runBin(ARUS_BINS.reseller, ['run'], { env: { DATA_DIR: join(dir, 'data'), CONTROL_PORT: '0', ...env }, timeoutMs: 20_000 })
      expect(r.code, JSON.stringify(env)).not.toBe(0)
      expect(r.stderr + r.stdout, JSON.stringify(env)).toMatch(name)
      expect(r.stderr + r.stdout).not.toContain('short-one')
    }
  })

  it('refuses clients outside CLIENT_ALLOWLIST before authentication; takes the proxy header\'s last entry; keys the lockout on it', async () => {
    // Loopback without the header is the box itself.
    expect((await fromAddress('/healthz', null)).status).toBe(200)
    for (const path of ['/healthz', '/api/me', '/branding.json', '/']) {
      const r = await fromAddress(path, '198.51.100.7')
      expect(r.status, path).toBe(403)
      expect(r.body.error.code, path).toBe('RESELLER_ADDRESS_DENIED')
    }
    expect((await fromAddress('/api/webhooks/credits', '198.51.100.7', { method: 'POST', body: { id: 'x', to: 'root', amount: 1 } })).body.error.code).toBe('RESELLER_ADDRESS_DENIED')
    expect((await fromAddress('/api/login', '198.51.100.7', { method: 'POST', body: { username: 'root', password: reseller.root.password } })).status).toBe(403)
    // A client putting an allowed address first does not get through: our proxy appended the real one last.
    expect((await fromAddress('/healthz', '203.0.113.9, 198.51.100.7')).status).toBe(403)
    expect((await fromAddress('/healthz', '203.0.113.9')).status).toBe(200)
    expect((await fromAddress('/healthz', '2001:db8::5')).status).toBe(200)
    const ok = await fromAddress('/api/login', '203.0.113.9', { method: 'POST', body: { username: 'root', password: reseller.root.password } })
    expect(ok.status).toBe(200)
    expect(ok.body.role).toBe('admin')

    // LOCKOUT_THRESHOLD=3 per name and per (proxied) client address.
    for (let i = 0; i < 3; i++) expect((await fromAddress('/api/login', '203.0.113.50', { method: 'POST', body: { username: `nobody${i}`, password: 'wrong-password' } })).status).toBe(401)
    const locked = await fromAddress('/api/login', '203.0.113.50', { method: 'POST', body: { username: 'root', password: reseller.root.password } })
    expect(locked.status).toBe(429)
    expect((await fromAddress('/api/login', '203.0.113.51', { method: 'POST', body: { username: 'root', password: reseller.root.password } })).status).toBe(200)
  })

  it('config routes are export-only', async () => {
    const info = await reseller.api('GET', '/api/config')
    expect(info).toMatchObject({ service: 'reseller', restoreSupported: false })
    const snap = await reseller.api('POST', '/api/config/snapshots', { note: 'before season' })
    expect(snap.sections.map((s: { name: string }) => s.name)).toEqual(['principals', 'accounts'])
    const plan = await reseller.call('POST', `/api/config/snapshots/${snap.id}/plan`, {})
    expect(plan.status).toBe(409)
    expect(plan.body.error.code).toBe('CONFIG_RESTORE_UNSUPPORTED')
    expect((await reseller.call('POST', `/api/config/snapshots/${snap.id}/restore`, { confirm: true })).body.error.code).toBe('CONFIG_RESTORE_UNSUPPORTED')
    const template = await reseller.api('GET', '/api/config/template')
    expect(Object.keys(template.sections.principals)).toContain('root')
    expect(template.sections.accounts).toBeUndefined()
    expect((await reseller.call('POST', '/api/config/template/import', { template, confirm: true })).body.error.code).toBe('CONFIG_RESTORE_UNSUPPORTED')
    // The CLI exports beside the running daemon.
    const listed = await reseller.cli<{ snapshots: Array<{ id: string }> }>(['config', 'list'])
    expect(listed.snapshots.map((s) => s.id)).toContain(snap.id)
  })

  it('malformed requests get a clear 4xx and the daemon keeps answering', async () => {
    const bad: Array<[string, string, unknown]> = [
      ['POST', '/api/credits/mint', { amount: -5 }],
      ['POST', '/api/credits/mint', { amount: 1.5 }],
      ['POST', '/api/credits/mint', { amount: 1, extra: true }],
      ['POST', '/api/credits/adjust', { principal: 'root', amount: 3 }],
      ['POST', '/api/credits/adjust', { principal: 'root', amount: 3, note: '   ' }],
      ['POST', '/api/credits/transfer', { to: '../etc', amount: 1 }],
      ['POST', '/api/accounts', { name: 'a b', password: 'x', months: 1 }],
      ['POST', '/api/accounts', { name: 'ok-name', password: 'x', months: 0 }],
      ['POST', '/api/accounts', { name: 'ok-name', password: 'x', months: 1, packages: 'basic' }],
      ['POST', '/api/principals', { username: 'x', password: 'short', role: 'reseller' }],
      ['POST', '/api/principals', { username: 'x', password: 'long-enough', role: 'admin' }],
      ['GET', '/api/accounts?limit=501', undefined],
      ['GET', '/api/accounts?sort=balance', undefined],
      ['GET', '/api/ledger?type=STEAL', undefined],
      ['POST', '/api/principals/root/status', { status: 'gone' }]
    ]
    for (const [method, path, body] of bad) {
      const r = await reseller.call(method, path, body)
      expect(r.status, `${method} ${path} ${JSON.stringify(body)}`).toBeGreaterThanOrEqual(400)
      expect(r.status, `${method} ${path}`).toBeLessThan(500)
      expect(typeof r.body.error.code).toBe('string')
    }
    const raw = await fetch(`${reseller.url}/api/webhooks/credits`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":', signal: AbortSignal.timeout(5000) })
    expect(raw.status).toBe(400)
    const big = await fetch(`${reseller.url}/api/webhooks/credits`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'x'.repeat(40_000) }), signal: AbortSignal.timeout(5000) })
    expect(big.status).toBe(413)
    expect((await reseller.call('GET', '/healthz')).body.ledger.invariantOk).toBe(true)
  })

  it('no secret in its log, its answers or its snapshots; a planted one is found', async () => {
    await reseller.api('POST', '/api/credits/mint', { amount: 5 })
    await reseller.api('POST', '/api/principals', { username: 'leaky', password: 'principal-secret-pw', role: 'super' })
    await reseller.api('POST', '/api/accounts', { name: 'viewer-x', password: 'viewer-secret-pw', months: 1 })
    await reseller.api('POST', '/api/accounts/viewer-x/password', { password: 'viewer-secret-pw2' })
    await reseller.api('POST', '/api/principals/leaky/password', { password: 'principal-secret-pw2' })
    const secrets = collectSecrets({ reseller: reseller.dataDir }, [
      ...envSecrets(reseller.env),
      ...['principal-secret-pw', 'principal-secret-pw2', 'viewer-secret-pw', 'viewer-secret-pw2', reseller.root.password].map((value) => ({ kind: 'password', value }))
    ])
    expect(secrets.map((s) => s.kind)).toEqual(expect.arrayContaining(['reseller signing key', 'principal verifier', 'principal salt', 'PANEL_ADMIN_PASS', 'WEBHOOK_SECRET', 'password']))
    const answers: string[] = []
    for (const path of ['/api/me', '/api/principals', '/api/principals/leaky', '/api/accounts', '/api/accounts/viewer-x', '/api/ledger', '/api/status', '/api/system', '/api/config', '/api/config/template', '/api/config/snapshots', '/api/ops/reconcile', '/api/openapi.json', '/branding.json']) {
      answers.push(JSON.stringify((await reseller.call('GET', path)).body))
    }
    answers.push(JSON.stringify((await reseller.call('POST', '/api/ops/reconcile')).body))
    const files: string[] = []
    const snapDir = join(reseller.dataDir, 'config-snapshots')
    await reseller.api('POST', '/api/config/snapshots', {})
    for (const f of await readdir(snapDir)) files.push(await readFile(join(snapDir, f), 'utf8'))
    files.push(await readFile(join(reseller.dataDir, 'accounts.json'), 'utf8'), await readFile(join(reseller.dataDir, 'ledger.jsonl'), 'utf8'))
    const log = reseller.proc!.stdoutLines().join('\n') + reseller.proc!.stderrText()
    expect(log.length).toBeGreaterThan(1000)
    const everything = [...answers, ...files, log].join('\n')
    expect(findSecrets(everything, secrets).map((s) => s.kind)).toEqual([])
    expect(findSecrets(`${everything}\n${secrets.find((s) => s.kind === 'principal verifier')!.value}`, secrets).map((s) => s.kind)).toEqual(['principal verifier'])
  })
})

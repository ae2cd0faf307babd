import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { routeTable } from '@arus/service'
import { tmpDir } from '@arus/testkit'
import { testServer } from './http-helpers.js'

/** A daemon's dashboard directory: an index page, its script, and a kit/ of its own that the kit's /kit/ shadows. */
function dashboardDir (t: Parameters<typeof tmpDir>[0]): string {
  const dir = tmpDir(t, 'dashboard-')
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Test daemon</title><script type="module" src="/app.js"></script>')
  writeFileSync(join(dir, 'app.js'), "import { createShell } from '/kit/shell.js'\n")
  mkdirSync(join(dir, 'kit'))
  writeFileSync(join(dir, 'kit', 'shell.js'), '// not the kit shell\n')
  return dir
}

describe('dashboard', () => {
  it('serves the daemon index at /, the kit shell at /kit/ and uPlot at /kit/uplot/, without a token', async (t) => {
    const s = await testServer(t, { dashboard: { dir: dashboardDir(t) } })
    const index = await s.app.inject({ method: 'GET', url: '/' })
    expect(index.statusCode).toBe(200)
    expect(index.headers['content-type']).toMatch(/^text\/html/)
    expect(index.body).toContain('<title>Test daemon</title>')
    expect(index.headers['content-security-policy']).toContain("default-src 'self'")

    const shell = await s.app.inject({ method: 'GET', url: '/kit/shell.js' })
    expect(shell.statusCode).toBe(200)
    expect(shell.headers['content-type']).toMatch(/^(text|application)\/javascript/)
    expect(shell.body).toContain('export function createShell')
    expect(shell.body).not.toContain('not the kit shell')
    const css = await s.app.inject({ method: 'GET', url: '/kit/shell.css' })
    expect([css.statusCode, css.headers['content-type']]).toEqual([200, expect.stringMatching(/^text\/css/)])

    const uplot = await s.app.inject({ method: 'GET', url: '/kit/uplot/uPlot.esm.js' })
    expect(uplot.statusCode).toBe(200)
    expect(uplot.headers['content-type']).toMatch(/javascript/)
    expect(uplot.body).toContain('export { uPlot as default }')
    expect((await s.app.inject({ method: 'GET', url: '/kit/uplot/uPlot.min.css' })).statusCode).toBe(200)

    // The daemon's own files sit beside the kit's; the API stays gated.
    expect((await s.app.inject({ method: 'GET', url: '/app.js' })).statusCode).toBe(200)
    expect((await s.app.inject({ method: 'GET', url: '/api/openapi.json' })).statusCode).toBe(401)
  })

  it('keeps static files out of the route table (and so out of the OpenAPI document)', async (t) => {
    const s = await testServer(t, { dashboard: { dir: dashboardDir(t) } })
    await s.app.ready()
    expect(routeTable(s.app).map((r) => r.url).sort()).toEqual(['/api/login', '/api/openapi.json', '/healthz', '/metrics'])
  })

  it('does not serve files outside the three directories, nor list them', async (t) => {
    const s = await testServer(t, { dashboard: { dir: dashboardDir(t) } })
    const urls = [
      '/kit/../package.json', '/kit/%2e%2e/package.json', '/kit/..%2fpackage.json', '/kit/uplot/../package.json',
      '/kit/uplot/%2e%2e/package.json', '/kit/uplot/%2e%2e/%2e%2e/%2e%2e/package.json', '/../package.json', '/%2e%2e/%2e%2e/package.json',
      '/kit/%2e%2e/src/http/dashboard.ts', '/kit/', '/kit/uplot/'
    ]
    for (const url of urls) {
      const r = await s.app.inject({ method: 'GET', url })
      expect(r.statusCode, url).toBeGreaterThanOrEqual(400)
      expect(r.statusCode, url).toBeLessThan(500)
      expect(r.body, url).not.toMatch(/"name": "(@arus\/service|uplot)"|mountDashboard|shell\.js|uPlot/)
    }
  })

  it('serves nothing at / or /kit/ without a dashboard', async (t) => {
    const s = await testServer(t)
    for (const url of ['/', '/kit/shell.js', '/kit/uplot/uPlot.esm.js']) {
      const r = await s.app.inject({ method: 'GET', url })
      expect(r.statusCode, url).toBe(404)
      expect(r.json().error.code).toBe('SERVICE_NOT_FOUND')
    }
  })
})

import { describe, expect, it } from 'vitest'
import { tmpDir } from '@arus/testkit'
import { cli, cliJson, initPanel, panelEnv } from './helpers.js'
import { adminApi } from './http-helpers.js'

// The VOD provider settings (issue 13 item 3): merge rules over HTTP and the CLI.
describe('VOD provider settings', () => {
  it('is null until configured; PATCH merges, sources and params replace whole; enabled needs apiBase and service', async (t) => {
    const a = await adminApi(t)
    expect((await a.call('GET', '/api/vod-config')).body).toEqual({ vodConfig: null })
    const refused = await a.call('PATCH', '/api/vod-config', { enabled: true })
    expect([refused.status, refused.body.error.code]).toEqual([400, 'PANEL_INVALID_INPUT'])
    expect(refused.body.error.message).toContain('apiBase')
    for (const apiBase of ['http://vod.example/api', 'https://vod.example/api?token=x', 'https://user:pw@vod.example/api']) {
      const bad = await a.call('PATCH', '/api/vod-config', { apiBase })
      expect(bad.status, apiBase).toBe(400)
      expect(JSON.stringify(bad.body)).not.toContain('pw@')
    }
    expect((await a.call('GET', '/api/vod-config')).body).toEqual({ vodConfig: null })
    const set = await a.call('PATCH', '/api/vod-config', { apiBase: 'https://vod.example/api', service: 'acme', sources: { movies: 'm1', series: 's1' }, params: { lang: 'en', region: 'eu' } })
    expect(set.body.vodConfig).toEqual({ enabled: false, apiBase: 'https://vod.example/api', service: 'acme', sources: { movies: 'm1', series: 's1' }, params: { lang: 'en', region: 'eu' } })
    const merged = await a.call('PATCH', '/api/vod-config', { enabled: true, sources: { movies: 'm2' }, params: { lang: 'fr' } })
    expect(merged.body.vodConfig).toEqual({ enabled: true, apiBase: 'https://vod.example/api', service: 'acme', sources: { movies: 'm2' }, params: { lang: 'fr' } })
    const before = a.opened.ctx.catalog.stats()
    await a.call('PATCH', '/api/vod-config', { enabled: true, params: { lang: 'fr' } })
    expect(a.opened.ctx.catalog.stats()).toEqual(before)
    expect((await a.call('PATCH', '/api/vod-config', {})).status).toBe(400)
  })

  it('vod-config-set: --params replaces the map, --param merges one key, an empty source clears it', async (t) => {
    const env = panelEnv(tmpDir(t, 'panel-vod-'))
    await initPanel(env)
    expect(await cliJson(env, ['vod-config'])).toEqual({ vodConfig: null })
    await cliJson(env, ['vod-config-set', '--api-base', 'https://vod.example/api', '--service', 'acme', '--movies-source', 'm1', '--series-source', 's1', '--params', 'a=1,b=2'])
    expect((await cliJson(env, ['vod-config-set', '--param', 'c=3', '--param', 'a=9'])).vodConfig.params).toEqual({ a: '9', b: '2', c: '3' })
    expect((await cliJson(env, ['vod-config-set', '--params', 'z=0'])).vodConfig.params).toEqual({ z: '0' })
    expect((await cliJson(env, ['vod-config-set', '--series-source', ''])).vodConfig.sources).toEqual({ movies: 'm1' })
    expect((await cliJson(env, ['vod-config-set', '--enabled', 'true'])).vodConfig.enabled).toBe(true)
    expect((await cli(env, ['vod-config-set', '--params', 'novalue'])).stderr).toContain('PANEL_INVALID_INPUT')
    expect((await cli(env, ['vod-config-set', '--api-base', 'http://plain.example'])).code).toBe(1)
  })
})

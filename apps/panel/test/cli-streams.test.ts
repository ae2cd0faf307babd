import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tmpDir } from '@arus/testkit'
import { cli, cliJson, initPanel, panelEnv } from './helpers.js'

async function setup (t: { onTestFinished(fn: () => unknown): void }) {
  const env = panelEnv(tmpDir(t, 'panel-cli-streams-'))
  await initPanel(env)
  return env
}

describe('arus-panel stream commands', () => {
  it('add-stream returns the key once and never puts it in the catalog', async (t) => {
    const env = await setup(t)
    const r = await cliJson(env, ['add-stream', 'news', '--title', 'News', '--category', 'News,Local'])
    expect(r.key).toMatch(/^[0-9a-f]{64}$/)
    expect(r.stream).toMatchObject({ id: 'news', title: 'News', category: ['News', 'Local'], type: 'live', isLive: false, status: 'idle', feedKey: null })
    const list = await cliJson(env, ['list'])
    expect(JSON.stringify(list)).not.toContain(r.key)
    const human = await cli(env, ['add-stream', 'sport'])
    expect(human.stdout).toMatch(/stream key \(secret, shown once\): [0-9a-f]{64}/)
    expect((await cli(env, ['add-stream', 'news'])).stderr).toContain('PANEL_EXISTS')
    expect((await cli(env, ['add-stream', 'bad id!'])).stderr).toContain('SERVICE_VALIDATION_FAILED')
  })

  it('add-stream --key and --feed use the given values', async (t) => {
    const env = await setup(t)
    const key = 'ab'.repeat(32)
    const feed = 'cd'.repeat(32)
    const r = await cliJson(env, ['add-stream', 'x', '--key', key, '--feed', feed])
    expect(r.key).toBe(key)
    expect(r.stream.feedKey).toBe(feed)
  })

  it('set-meta edits metadata, refuses bad order, and an empty epg value clears the pair', async (t) => {
    const env = await setup(t)
    await cliJson(env, ['add-stream', 'news'])
    const s = await cliJson(env, ['set-meta', 'news', '--title', 'Evening News', '--description', 'd', '--category', 'A,B', '--featured', 'true', '--restricted', 'true', '--order', '7', '--epg-url', 'https://epg.example/guide.json', '--epg-id', 'news.1'])
    expect(s.restricted).toBe(true)
    expect(s).toMatchObject({ title: 'Evening News', description: 'd', category: ['A', 'B'], featured: true, order: 7, epgUrl: 'https://epg.example/guide.json', epgId: 'news.1' })
    expect((await cli(env, ['set-meta', 'news', '--order', '10000'])).code).toBe(1)
    expect((await cli(env, ['set-meta', 'news', '--epg-url', 'http://insecure.example/x'])).code).toBe(1)
    const cleared = await cliJson(env, ['set-meta', 'news', '--epg-url', '', '--order', 'null'])
    expect(cleared.epgUrl).toBeUndefined()
    expect(cleared.epgId).toBeUndefined()
    expect(cleared.order).toBeNull()
    expect((await cli(env, ['set-meta', 'news'])).stderr).toContain('give at least one field')
  })

  it('upload-art stores content-addressed art; delete-stream purges record, key, grants and art', async (t) => {
    const env = await setup(t)
    const dir = tmpDir(t)
    const png = join(dir, 'poster.png')
    await writeFile(png, Buffer.from('89504e470d0a1a0a' + '00'.repeat(64), 'hex'))
    await cliJson(env, ['add-stream', 'news'])
    await cliJson(env, ['create-user', 'alice'], 'pw\n')
    await cliJson(env, ['grant', 'alice', 'news'])
    const art = await cliJson(env, ['upload-art', 'news', 'poster', png])
    expect(art.path).toMatch(/^assets\/[0-9a-f]{64}\.png$/)
    expect((await cliJson(env, ['list'])).streams[0].poster).toBe(art.path)
    expect((await cli(env, ['upload-art', 'news', 'banner', png])).stderr).toContain('PANEL_INVALID_INPUT')

    expect(await cliJson(env, ['delete-stream', 'news'])).toEqual({ deleted: 'news' })
    const list = await cliJson(env, ['list'])
    expect(list.streams).toEqual([])
    expect(list.users[0].grants).toEqual([])
    // Re-adding a deleted id mints a fresh key.
    const again = await cliJson(env, ['add-stream', 'news'])
    expect(again.key).toMatch(/^[0-9a-f]{64}$/)
    expect((await cli(env, ['delete-stream', 'ghost'])).stderr).toContain('PANEL_NOT_FOUND')
  })
})

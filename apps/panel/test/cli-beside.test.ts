import { describe, expect, it } from 'vitest'
import { createTestnet, startHttpsFixture, startPanel, waitFor } from '@arus/testkit'
import { cli, cliJson } from './helpers.js'

// Registry-only and read-only commands beside a running panel (spec 1 "What the service does"
// 7 and the Admin CLI table): the panel holds the store, so these must not need it. The panel
// is the built daemon; the feed a real HTTPS server it trusts through NODE_EXTRA_CA_CERTS.

const hls = (n: string) => `https://cdn.example/${n}/index.m3u8`
type StreamRow = { id: string; source?: string; redirect: boolean; url: string | null }

async function runningPanel (t: { onTestFinished(fn: () => unknown): void }) {
  const testnet = await createTestnet(t)
  const feeds = await startHttpsFixture(t)
  const panel = await startPanel(t, { testnet, users: [{ name: 'ann', password: 'ann-pw' }], env: { NODE_EXTRA_CA_CERTS: feeds.caFile } })
  const streams = async (): Promise<StreamRow[]> => (await panel.api('GET', '/api/streams')).streams
  return { panel, feeds, streams }
}

describe('arus-panel commands beside a running panel', () => {
  it('remove-source --keep-channels records the removal; the running panel detaches the channels as manual ones', async (t) => {
    const { panel, feeds, streams } = await runningPanel(t)
    feeds.set('/keep.json', { body: JSON.stringify({ channels: [{ id: 'a', url: hls('a') }, { id: 'b', url: hls('b') }] }) })
    feeds.set('/drop.json', { body: JSON.stringify({ channels: [{ id: 'c', url: hls('c') }] }) })
    await panel.api('POST', '/api/sources', { name: 'keep', url: feeds.url('/keep.json'), category: 'Keep TV', enabled: false })
    await panel.api('POST', '/api/sources', { name: 'drop', url: feeds.url('/drop.json'), category: 'Drop TV', enabled: false })
    expect((await streams()).map((s) => [s.id, s.source])).toEqual([['drop.c', 'drop'], ['keep.a', 'keep'], ['keep.b', 'keep']])

    const kept = await cli(panel.env, ['--json', 'remove-source', 'keep', '--keep-channels'])
    expect(kept.stderr).not.toContain('ELOCKED')
    expect(kept.code).toBe(0)
    expect(JSON.parse(kept.stdout)).toMatchObject({ deleted: 'keep', pending: expect.stringContaining('detaches') })
    expect(await cliJson(panel.env, ['remove-source', 'drop'])).toMatchObject({ deleted: 'drop' })
    expect((await panel.api('GET', '/api/sources')).sources).toEqual([])

    const after = await waitFor(async () => {
      const s = await streams()
      return s.some((x) => x.source !== undefined) ? null : s
    }, { timeoutMs: 30_000, intervalMs: 250, message: 'removals applied by the running panel' })
    // Detached: the same redirect channels, now manual (no source mark); the other source's purged.
    expect(after.map((s) => [s.id, s.source, s.redirect, s.url])).toEqual([['keep.a', undefined, true, hls('a')], ['keep.b', undefined, true, hls('b')]])
    // A detached channel is the operator's now: a new source of that name does not own it.
    expect((await cli(panel.env, ['remove-source', 'keep'])).stderr).toContain('PANEL_NOT_FOUND')
  }, 90_000)

  it('list-packages and show-package read the catalog beside the running panel (no ELOCKED)', async (t) => {
    const { panel } = await runningPanel(t)
    await panel.api('POST', '/api/streams', { id: 'tv.one', category: ['Info'] })
    await panel.api('POST', '/api/streams', { id: 'tv.two' })
    await panel.api('POST', '/api/packages', { name: 'basic', members: ['tv.*'], default: true })
    await panel.api('POST', '/api/users/ann/packages', { packages: ['basic'] })

    const listed = await cli(panel.env, ['--json', 'list-packages'])
    expect(listed.stderr).not.toContain('ELOCKED')
    expect(listed.code).toBe(0)
    const api = (await panel.api('GET', '/api/packages')).packages
    expect(JSON.parse(listed.stdout).packages).toEqual(api)
    expect(api).toEqual([expect.objectContaining({ name: 'basic', channels: ['tv.one', 'tv.two'], channelCount: 2, holders: 1 })])
    expect(await cliJson(panel.env, ['show-package', 'basic'])).toMatchObject({ name: 'basic', channels: ['tv.one', 'tv.two'], holders: 1 })
    // A change through the running panel is what the next read-only command sees.
    await panel.api('POST', '/api/streams', { id: 'tv.three' })
    expect((await cliJson(panel.env, ['show-package', 'basic'])).channels).toEqual(['tv.one', 'tv.three', 'tv.two'])
    expect((await cli(panel.env, ['show-package', 'ghost'])).stderr).toContain('PANEL_NOT_FOUND')
  }, 90_000)
})

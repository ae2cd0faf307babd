import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARUS_BINS, cleanupAll, createTestnet, runBin, startLibrary, tmpDir, waitFor, type LibraryHandle, type Testnet } from '@arus/testkit'
import { makeMedia } from './media.js'

// Spec 1 "Config snapshots" for the library, against the built daemon and real ffmpeg: a
// restore puts back ingest settings only (a deleted title comes back queued and ingests
// again, a patched one gets its old input/mode/hlsTime), restores need confirm, templates
// carry no inputs and refuse another service's, and from the CLI beside the running daemon a
// snapshot works while a writing restore is refused with LIBRARY_ELOCKED.

const ctx = { onTestFinished: () => {} }
let testnet: Testnet
let library: LibraryHandle
let media: string
let keepInput: string
let dropInput: string
/** The snapshot the CLI took beside the running daemon (cfg.keep at hlsTime 2, both titles). */
let cliSnapshot: string | null = null

beforeAll(async () => {
  testnet = await createTestnet(ctx)
  library = await startLibrary(ctx, { bootstrap: testnet.bootstrapString })
  media = tmpDir(ctx, 'arus-media-')
  ;[keepInput, dropInput] = await Promise.all([makeMedia(media, 'h264-aac', 4, 'keep.mp4'), makeMedia(media, 'h264-aac', 4, 'drop.mp4')])
}, 120_000)

afterAll(async () => { await cleanupAll() }, 60_000)

/** The title once ready; fails at once, with its log, when it ends in error. */
async function ready (id: string): Promise<any> {
  const view = await waitFor(async () => {
    const v = await library.api('GET', `/api/titles/${id}`)
    return v.state === 'ready' || v.state === 'error' ? v : null
  }, { timeoutMs: 60_000, intervalMs: 200, message: `title ${id} ready` }).catch(async (err: unknown) => {
    const v = await library.api('GET', `/api/titles/${id}`)
    const logs = await library.api('GET', `/api/titles/${id}/logs?lines=40`)
    throw new Error(`title ${id} stuck in ${String(v.state)} (${JSON.stringify(v.ingest)}): ${(err as Error).message}\n${(logs.lines as string[]).join('\n')}`)
  })
  if (view.state === 'error') {
    const logs = await library.api('GET', `/api/titles/${id}/logs?lines=40`)
    throw new Error(`title ${id} failed: ${String(view.error)}\n${(logs.lines as string[]).join('\n')}`)
  }
  return view
}

describe('library config snapshots', () => {
  it('a restore puts back ingest settings: the deleted title comes back queued and ingests again, the patched one gets its old settings', async () => {
    await library.api('POST', '/api/titles', { id: 'cfg.keep', input: keepInput, title: 'Kept film', hlsTime: 2 })
    const keep = await ready('cfg.keep')
    await library.api('POST', '/api/titles', { id: 'cfg.drop', input: dropInput, title: 'Dropped film', category: ['Films'], mode: 'copy', hlsTime: 3 })
    const snap = await library.api('POST', '/api/config/snapshots', { note: 'two titles' })
    expect(snap).toMatchObject({ service: 'library', note: 'two titles', reason: 'manual', sections: [{ name: 'titles', items: 2 }] })

    await library.api('PATCH', '/api/titles/cfg.keep', { mode: 'transcode', hlsTime: 6 })
    const dropped = await ready('cfg.drop')
    expect(await library.api('DELETE', '/api/titles/cfg.drop')).toEqual({ deleted: 'cfg.drop' })
    expect((await library.call('GET', '/api/titles/cfg.drop')).status).toBe(404)

    const plan = await library.api('POST', `/api/config/snapshots/${snap.id}/plan`, {})
    expect(plan.sections.titles).toEqual({ added: ['cfg.drop'], changed: ['cfg.keep'], leftAlone: [], removed: [], skipped: [], warnings: [] })
    expect((await library.call('GET', '/api/titles/cfg.drop')).status).toBe(404) // a plan writes nothing

    for (const body of [{}, { confirm: false }]) {
      const refused = await library.call('POST', `/api/config/snapshots/${snap.id}/restore`, body)
      expect(refused.status).toBe(400)
      expect(refused.body.error.code).toBe('CONFIG_CONFIRM_REQUIRED')
    }
    expect(await library.api('GET', '/api/titles/cfg.keep')).toMatchObject({ mode: 'transcode', hlsTime: 6 })

    const restored = await library.api('POST', `/api/config/snapshots/${snap.id}/restore`, { confirm: true })
    expect(restored.sections.titles).toMatchObject({ added: ['cfg.drop'], changed: ['cfg.keep'] })
    const back = await library.api('GET', '/api/titles/cfg.drop')
    expect(back).toMatchObject({ input: dropInput, title: 'Dropped film', category: ['Films'], mode: 'copy', hlsTime: 3, feedKey: null, error: null })
    expect(['queued', 'ingesting']).toContain(back.state)
    const again = await ready('cfg.drop')
    // A fresh feed in the next generation: the deleted title's namespaces hold purged cores, never reused.
    expect(again.generation).toBe(dropped.generation + 1)
    expect(again.feedKey).not.toBe(dropped.feedKey)
    // Ingest settings back; the feed untouched (they apply at the next ingest).
    expect(await library.api('GET', '/api/titles/cfg.keep')).toMatchObject({ state: 'ready', mode: 'auto', hlsTime: 2, input: keepInput, feedKey: keep.feedKey, generation: keep.generation })

    const snapshots = (await library.api('GET', '/api/config/snapshots')).snapshots as Array<{ id: string; reason: string }>
    expect(snapshots.find((s) => s.id === restored.preRestoreSnapshot)?.reason).toBe('before-restore')
    const again2 = await library.api('POST', `/api/config/snapshots/${snap.id}/plan`, {})
    expect(again2.sections.titles).toMatchObject({ added: [], changed: [], leftAlone: ['cfg.keep', 'cfg.drop'] })
  }, 100_000)

  it('a template leaves every input out and names each omission; another service\'s template is refused with 409 CONFIG_WRONG_SERVICE', async () => {
    const template = await library.api('GET', '/api/config/template')
    expect(template).toMatchObject({ kind: 'arus-config-template', version: 1, service: 'library', contains: 'no-secrets' })
    const titles = template.sections.titles as Record<string, { input: string }>
    expect(Object.keys(titles).sort()).toEqual(['cfg.drop', 'cfg.keep'])
    for (const t of Object.values(titles)) expect(t.input).toBe('')
    expect(JSON.stringify(template)).not.toContain(media)
    expect(template.omitted).toEqual(expect.arrayContaining(['cfg.keep', 'cfg.drop'].map((id) => expect.objectContaining({ section: 'titles', path: `titles.${id}.input` }))))

    // Our own template: nothing to ingest without inputs, so every title is skipped.
    const own = await library.api('POST', '/api/config/template/plan', { template })
    expect(own.sections.titles.skipped.map((s: { id: string }) => s.id).sort()).toEqual(['cfg.drop', 'cfg.keep'])
    expect(own.sections.titles).toMatchObject({ added: [], changed: [] })

    const foreign = {
      kind: 'arus-config-template', version: 1, service: 'broadcaster', createdAt: new Date().toISOString(), contains: 'no-secrets',
      omitted: [{ section: 'channels', path: 'channels.news.input', reason: 'input' }],
      sections: { channels: { news: { title: 'News', input: '' } } }
    }
    for (const [path, body] of [['/api/config/template/plan', { template: foreign }], ['/api/config/template/import', { template: foreign, confirm: true }]] as const) {
      const r = await library.call('POST', path, body)
      expect(r.status, path).toBe(409)
      expect(r.body.error.code).toBe('CONFIG_WRONG_SERVICE')
    }
    expect(((await library.api('GET', '/api/titles')).titles as unknown[]).length).toBe(2)
  })

  it('from the CLI beside the running daemon: config snapshot works; a writing config restore --confirm is refused with LIBRARY_ELOCKED and writes nothing', async () => {
    const taken = await library.cli(['config', 'snapshot', '--note', 'from the cli'])
    expect(taken).toMatchObject({ service: 'library', note: 'from the cli', sections: [{ name: 'titles', items: 2 }] })
    const listed = (await library.api('GET', '/api/config/snapshots')).snapshots as Array<{ id: string }>
    expect(listed.map((s) => s.id)).toContain(taken.id)

    await library.api('PATCH', '/api/titles/cfg.keep', { hlsTime: 5 }) // so the restore has something to write
    const plan = await library.cli(['config', 'plan', taken.id])
    expect(plan.sections.titles).toMatchObject({ changed: ['cfg.keep'] })

    const r = await runBin(ARUS_BINS.library, ['--json', 'config', 'restore', taken.id, '--confirm'], { env: library.env })
    expect(r.code, r.stderr).toBe(1)
    expect(r.stderr).toContain('[LIBRARY_ELOCKED]')
    expect(await library.api('GET', '/api/titles/cfg.keep')).toMatchObject({ state: 'ready', hlsTime: 5 })
    expect((await library.call('GET', '/healthz')).body).toMatchObject({ ok: true, titles: 2, ready: 2 })
    cliSnapshot = taken.id
  }, 60_000)

  it('with the daemon stopped, config restore --confirm from the CLI puts a deleted title back; it ingests at the next boot', async () => {
    expect(cliSnapshot).not.toBeNull()
    const dropped = await ready('cfg.drop')
    await library.api('DELETE', '/api/titles/cfg.drop')
    await library.stop()
    const restored = await library.cli(['config', 'restore', cliSnapshot!, '--confirm'])
    expect(restored.sections.titles).toMatchObject({ added: ['cfg.drop'], changed: ['cfg.keep'] })
    await library.start()
    expect(await library.api('GET', '/api/titles/cfg.keep')).toMatchObject({ state: 'ready', hlsTime: 2 })
    const again = await ready('cfg.drop')
    expect(again.generation).toBe(dropped.generation + 1)
    expect(again.feedKey).not.toBe(dropped.feedKey)
  }, 90_000)
})

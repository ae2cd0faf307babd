import { readdirSync, lstatSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlayer, loginWithRetry, type DisplayItem, type Player } from '@arus/sdk'
import {
  cleanupAll, createTestnet, decodeWithFfmpeg, startLibrary, startPanel, tmpDir, waitFor, type LibraryHandle, type PanelHandle, type Testnet
} from '@arus/testkit'
import { makeMedia } from './media.js'

// Issue 15: re-ingest, delete and restart against the built panel and library, real ffmpeg
// and real SDK viewers on a local testnet.

const ctx = { onTestFinished: () => {} }
let testnet: Testnet
let panel: PanelHandle
let library: LibraryHandle
let media: string
let short: string

beforeAll(async () => {
  testnet = await createTestnet(ctx)
  panel = await startPanel(ctx, { testnet, users: [{ name: 'alice', password: 'alice-pw' }] })
  library = await startLibrary(ctx, { panel, scopes: 'vod.*' })
  media = tmpDir(ctx, 'arus-media-')
  short = await makeMedia(media, 'h264-aac', 12)
}, 120_000)

afterAll(async () => { await cleanupAll() }, 60_000)

async function viewer (t: { onTestFinished(fn: () => unknown): void }): Promise<Player> {
  const player = createPlayer({ panelPubKey: panel.panelKey, storeDir: tmpDir(t, 'arus-viewer-'), swarm: { bootstrap: testnet.bootstrap } })
  t.onTestFinished(() => player.stop())
  await player.connect()
  await loginWithRetry(player, 'alice', 'alice-pw', { attempts: 40, delayMs: 500 })
  return player
}

/** Bytes allocated under `dir` (st_blocks), like du. */
function allocated (dir: string): number {
  let n = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) n += allocated(p)
    else n += lstatSync(p).blocks * 512
  }
  return n
}

describe('library title lifecycle', () => {
  it('re-ingest: a fresh feedKey; a viewer already playing is not swapped; resolving again plays the new generation', async (t) => {
    await library.api('POST', '/api/titles', { id: 'vod.film', input: short, title: 'Film' })
    const first = await library.waitTitle('vod.film')
    await panel.api('POST', '/api/users/alice/grants', { streamId: 'vod.film' })
    const a = await viewer(t)
    const changes: unknown[] = []
    a.on('feed-changed', (e) => changes.push(e))
    const before = await a.resolve('vod.film')
    expect(before.feedKey).toBe(first.feedKey)
    const playing = decodeWithFfmpeg(before.url, 10, { timeoutMs: 60_000, inputArgs: ['-re'] })

    const queued = await library.api('POST', '/api/titles/vod.film/ingest')
    expect(queued.state).toBe('queued')
    await waitFor(async () => { const v = await library.api('GET', '/api/titles/vod.film'); return v.state === 'ready' && v.feedKey !== first.feedKey && v.registered }, { timeoutMs: 60_000, intervalMs: 200, message: 're-ingested' })
    const second = await library.api('GET', '/api/titles/vod.film')
    expect(second.generation).toBe(first.generation + 1)
    await waitFor(async () => (await panel.api('GET', '/api/streams')).streams.find((s: { id: string }) => s.id === 'vod.film')?.feedKey === second.feedKey, { timeoutMs: 20_000, message: 'panel record updated' })

    const played = await playing
    expect(played.code, played.stderr).toBe(0) // the old generation kept serving the film to its end
    expect(changes).toEqual([])
    const again = await a.resolve('vod.film')
    expect(again.feedKey).toBe(second.feedKey)
    const decoded = await decodeWithFfmpeg(again.url, 3, { timeoutMs: 60_000 })
    expect(decoded.code, decoded.stderr).toBe(0)
    const b = await viewer(t)
    expect((await b.resolve('vod.film')).feedKey).toBe(second.feedKey)
  }, 180_000)

  it('delete is refused mid-ingest; a deleted title becomes unavailable for a logged-in viewer by live push and its bytes leave the disk', async (t) => {
    const long = await makeMedia(media, 'h264-aac', 40, 'long.mp4')
    await library.api('POST', '/api/titles', { id: 'vod.long', input: long, title: 'Long', mode: 'transcode' })
    await waitFor(async () => (await library.api('GET', '/api/titles/vod.long')).state === 'ingesting', { timeoutMs: 30_000, intervalMs: 20, message: 'ingesting' })
    const refused = await library.call('DELETE', '/api/titles/vod.long')
    expect(refused.status).toBe(409)
    expect(refused.body.error.code).toBe('LIBRARY_INGESTING')
    const ready = await library.waitTitle('vod.long')
    await panel.api('POST', '/api/users/alice/grants', { streamId: 'vod.long' })
    const c = await viewer(t)
    const item = (list: DisplayItem[]) => list.find((i) => i.id === 'vod.long')
    const lists: DisplayItem[][] = []
    c.on('streams', (list) => lists.push(list))
    const played = await decodeWithFfmpeg((await c.resolve('vod.long')).url, 2, { timeoutMs: 60_000 })
    expect(played.code, played.stderr).toBe(0)

    const store = join(library.dataDir, 'store')
    const bytesBefore = allocated(store)
    expect(await library.api('DELETE', '/api/titles/vod.long')).toEqual({ deleted: 'vod.long' })
    await waitFor(() => lists.some((l) => item(l)?.status === 'unavailable'), { timeoutMs: 20_000, message: 'unavailable pushed to the viewer' })
    expect(item(lists.at(-1)!)).toMatchObject({ status: 'unavailable', available: false })
    await expect(c.resolve('vod.long')).rejects.toMatchObject({ code: 'SDK_TITLE_UNAVAILABLE' })
    const bytesAfter = allocated(store)
    expect(bytesBefore - bytesAfter).toBeGreaterThan(ready.bytes * 0.9)
    expect((await library.call('GET', '/api/titles/vod.long')).status).toBe(404)
    const record = (await panel.api('GET', '/api/streams')).streams.find((s: { id: string }) => s.id === 'vod.long')
    expect(record).toMatchObject({ type: 'vod', status: 'unavailable' }) // stays until an admin removes it
    console.log(`[library] delete reclaimed ${bytesBefore - bytesAfter} of ${bytesBefore} allocated bytes (title ${ready.bytes} bytes)`)
  }, 180_000)

  it('a kill -9 with titles ready, queued and mid-ingest loses nothing: ready ones seed again, the interrupted one starts over, the queued one runs', async (t) => {
    const long = await makeMedia(media, 'h264-aac', 40, 'restart.mp4')
    await library.api('POST', '/api/titles', { id: 'vod.kept', input: short, title: 'Kept' })
    const kept = await library.waitTitle('vod.kept')
    await library.api('POST', '/api/titles', { id: 'vod.mid', input: long, title: 'Mid', mode: 'transcode' })
    await library.api('POST', '/api/titles', { id: 'vod.next', input: short, title: 'Next' })
    await waitFor(async () => { const v = await library.api('GET', '/api/titles/vod.mid'); return v.state === 'ingesting' && v.ingest?.phase === 'convert' }, { timeoutMs: 30_000, intervalMs: 20, message: 'mid-ingest' })
    expect((await library.api('GET', '/api/titles/vod.next')).state).toBe('queued')

    await library.proc!.stop('SIGKILL')
    await library.stop()
    await library.start()
    const titles = (await library.api('GET', '/api/titles')).titles.map((v: { id: string }) => v.id).sort()
    expect(titles.filter((id: string) => ['vod.kept', 'vod.mid', 'vod.next'].includes(id))).toEqual(['vod.kept', 'vod.mid', 'vod.next'])
    const keptAgain = await library.waitTitle('vod.kept')
    expect(keptAgain.feedKey).toBe(kept.feedKey)
    const mid = await library.waitTitle('vod.mid')
    const next = await library.waitTitle('vod.next')
    expect(mid.generation).toBe(2) // the interrupted generation 1 was discarded, not resumed
    expect((await library.api('GET', '/api/titles/vod.mid/logs?lines=400')).lines.join('\n')).toContain('interrupted by a restart')
    expect(next.generation).toBe(1)
    // The kept title still plays from the library that seeds it again.
    await panel.api('POST', '/api/users/alice/grants', { streamId: 'vod.kept' })
    const d = await viewer(t)
    const decoded = await decodeWithFfmpeg((await d.resolve('vod.kept')).url, 2, { timeoutMs: 60_000 })
    expect(decoded.code, decoded.stderr).toBe(0)
  }, 240_000)
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { childPriorities, cleanupAll, createTestnet, decodeWithFfmpeg, startLibrary, startPanel, tmpDir, waitFor, type LibraryHandle, type PanelHandle, type Testnet } from '@arus/testkit'
import { createPlayer, loginWithRetry } from '@arus/sdk'
import { makeMedia } from './media.js'

// Issue 15, against the built panel and library, real ffmpeg and real SDK viewers on a local
// testnet: a copy ingest and a transcode ingest reach a viewer as vod titles that play from
// the start and from two thirds in (Range requests).

const ctx = { onTestFinished: () => {} }
let testnet: Testnet
let panel: PanelHandle
let library: LibraryHandle
let media: string

beforeAll(async () => {
  testnet = await createTestnet(ctx)
  panel = await startPanel(ctx, { testnet, users: [{ name: 'alice', password: 'alice-pw' }] })
  library = await startLibrary(ctx, { panel, scopes: 'vod.*' })
  media = tmpDir(ctx, 'arus-media-')
}, 120_000)

afterAll(async () => { await cleanupAll() }, 60_000)

async function viewer (t: { onTestFinished(fn: () => unknown): void }) {
  const player = createPlayer({ panelPubKey: panel.panelKey, storeDir: tmpDir(t, 'arus-viewer-'), swarm: { bootstrap: testnet.bootstrap } })
  t.onTestFinished(() => player.stop())
  await player.connect()
  await loginWithRetry(player, 'alice', 'alice-pw', { attempts: 40, delayMs: 500 })
  return player
}

describe('library ingest to a viewer', () => {
  it('copies H.264/AAC and transcodes MPEG-2/MP2 under auto; the viewer resolves vod with durationSec and plays from the start and from 2/3', async (t) => {
    const h264 = await makeMedia(media, 'h264-aac', 12)
    const mpeg2 = await makeMedia(media, 'mpeg2-mp2', 12)
    await library.api('POST', '/api/titles', { id: 'vod.copy', input: h264, title: 'Copy film', description: 'A remux', category: ['Films'] })
    await library.api('POST', '/api/titles', { id: 'vod.trans', input: mpeg2, title: 'Transcoded film', hlsTime: 2 })
    const phases = new Set<string>()
    // The ingest's ffmpeg and ffprobe run at INGEST_NICE (19 by default), every thread of them.
    const niceness = new Set<number>()
    const sample = setInterval(() => {
      for (const p of childPriorities(library.proc!.child.pid!, ['ffmpeg', 'ffprobe'])) for (const n of p.threads) niceness.add(n)
    }, 10)
    try {
      await waitFor(async () => {
        const t2 = await library.api('GET', '/api/titles/vod.trans')
        if (t2.ingest) phases.add(t2.ingest.phase)
        return t2.state === 'ready'
      }, { timeoutMs: 120_000, intervalMs: 50, message: 'transcode ready' })
    } finally {
      clearInterval(sample)
    }
    expect([...niceness]).toEqual([19]) // the highest niceness there is, whatever the suite's own
    const copied = await library.waitTitle('vod.copy')
    const trans = await library.waitTitle('vod.trans')
    expect(copied).toMatchObject({ state: 'ready', registered: true, registerError: null, feedKey: expect.stringMatching(/^[0-9a-f]{64}$/), segments: expect.any(Number) })
    expect(copied.durationSec).toBeCloseTo(12, 0)
    expect(trans.durationSec).toBeCloseTo(12, 0)
    expect(trans.segments).toBe(6) // keyframes forced every hlsTime
    const logs = await library.api('GET', '/api/titles/vod.copy/logs?lines=50')
    expect(logs.lines.join('\n')).toContain('convert: copy')
    expect((await library.api('GET', '/api/titles/vod.trans/logs')).lines.join('\n')).toContain('convert: transcode')
    expect(phases.size).toBeGreaterThan(0) // seen while it ran
    for (const id of ['vod.copy', 'vod.trans']) {
      const steps = (await library.api('GET', `/api/titles/${id}/logs?lines=400`)).lines.map((l: string) => /phase: (\w+)/.exec(l)?.[1]).filter(Boolean)
      expect(steps).toEqual(['probe', 'convert', 'import'])
    }

    const record = (await panel.api('GET', '/api/streams')).streams.find((s: { id: string }) => s.id === 'vod.copy')
    expect(record).toMatchObject({ type: 'vod', title: 'Copy film', status: 'available', origin: 'library' })
    for (const id of ['vod.copy', 'vod.trans']) await panel.api('POST', '/api/users/alice/grants', { streamId: id })
    const player = await viewer(t)
    for (const id of ['vod.copy', 'vod.trans']) {
      const r = await player.resolve(id)
      expect(r).toMatchObject({ type: 'vod', durationSec: expect.any(Number) })
      expect(r.durationSec).toBeCloseTo(12, 0)
      const start = await decodeWithFfmpeg(r.url, 3, { timeoutMs: 60_000 })
      expect(start.code, start.stderr).toBe(0)
      const seek = await decodeWithFfmpeg(r.url, 2, { timeoutMs: 60_000, inputArgs: ['-ss', String(Math.floor(r.durationSec! * 2 / 3))] })
      expect(seek.code, seek.stderr).toBe(0)
    }
  }, 240_000)
})

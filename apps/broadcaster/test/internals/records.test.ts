import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tmpDir } from '@arus/testkit'
import { openAnalytics } from '../../src/analytics.js'
import { openIncidentLog } from '../../src/incidents.js'
import { createLogRing, LOG_RING_LINES } from '../../src/pipeline/log-ring.js'
import { createProfileParser } from '../../src/pipeline/ffmpeg.js'
import { createSourceCursor } from '../../src/pipeline/sources.js'

describe('source cursor (failures counted per fallback URL)', () => {
  it('gives each source slateAfter attempts in turn, then reports exhaustion', () => {
    const c = createSourceCursor(['a', 'b'], 2)
    expect(c.failed()).toBe('same')
    expect(c.failed()).toBe('next')
    expect(c.current()).toBe('b')
    expect(c.failed()).toBe('same')
    expect(c.failed()).toBe('exhausted')
    expect(c.totalFailures()).toBe(4)
    c.select(0)
    expect([c.current(), c.totalFailures()]).toEqual(['a', 0])
  })

  it('starts every count again after a success', () => {
    const c = createSourceCursor(['a'], 3)
    c.failed(); c.failed()
    c.succeeded()
    expect(c.failuresAt(0)).toBe(0)
    expect(c.failed()).toBe('same')
  })
})

describe('log ring', () => {
  it('keeps at most 400 lines and answers the last n', () => {
    const ring = createLogRing(() => 7)
    for (let i = 0; i < 450; i++) ring.push(`line ${i}`)
    expect(ring.lines()).toHaveLength(LOG_RING_LINES)
    expect(ring.lines(2)).toEqual([{ t: 7, line: 'line 448' }, { t: 7, line: 'line 449' }])
    expect(ring.lines(10_000)).toHaveLength(LOG_RING_LINES)
    ring.clear()
    expect(ring.lines()).toEqual([])
  })
})

describe('incident log', () => {
  it('correlates fleet-wide respawns into one burst window', async () => {
    let t = 1000
    const log = await openIncidentLog(null, { burstThreshold: 3, burstWindowMs: 10_000, now: () => t })
    log.respawn('a'); t += 100
    log.respawn('b'); t += 100
    expect(log.list()).toEqual([])
    log.respawn('a'); t += 100
    log.respawn('c')
    const [burst] = log.list()
    expect(burst).toMatchObject({ kind: 'respawn-burst', channel: null, channels: ['a', 'b', 'c'], count: 4, startedAt: 1000, endedAt: 1300 })
    t += 60_000
    log.respawn('a')
    expect(log.list()).toHaveLength(1) // one late respawn is no new burst
  })

  it('opens one outage window per source and closes it when the source is back', async () => {
    let t = 0
    const log = await openIncidentLog(null, { now: () => t })
    log.sourceDown('ch', 'http://user:secret@cdn.example/x.m3u8', 'exit 1'); t = 5
    log.sourceDown('ch', 'http://user:secret@cdn.example/x.m3u8', 'exit 1'); t = 9
    expect(log.counts()).toMatchObject({ total: 1, open: 1 })
    log.sourceUp('ch', 'http://user:secret@cdn.example/x.m3u8')
    const [outage] = log.list()
    expect(outage).toMatchObject({ kind: 'source-outage', channel: 'ch', count: 2, startedAt: 0, endedAt: 9 })
    expect(outage!.source).not.toContain('secret')
    log.slateOn('ch', 3, '/slate.ts')
    log.slateRetry('ch', 'http://cdn.example/x.m3u8', false, 'refused')
    log.slateOff('ch', 'http://cdn.example/x.m3u8')
    expect(log.list().map((i) => i.kind)).toEqual(['slate-off', 'slate-retry', 'slate-on', 'source-outage'])
    expect(log.counts().byKind['slate-retry']).toBe(1)
  })
})

describe('analytics', () => {
  it('folds samples into hourly buckets by UTC day: peers min/max/mean, egress deltas, respawns', async () => {
    let t = Date.UTC(2026, 10, 21, 13, 5)
    let peers = 2
    let egress = 1000
    const a = await openAnalytics({ enabled: true, retentionDays: 2, sampleMs: 3_600_000, path: null, now: () => t })
    a.start(() => [{ id: 'ch', peers, egressBytesTotal: egress }])
    await a.sample()
    a.respawn('ch'); a.respawn('ch'); a.incident()
    peers = 4; egress = 1500; t += 300_000
    await a.sample()
    const view = a.view()
    expect(view.days).toHaveLength(1)
    expect(view.days[0]!.date).toBe('2026-11-21')
    expect(view.days[0]!.hours['13']).toEqual({ channels: { ch: { peers: { min: 2, max: 4, mean: 3, samples: 2 }, egressBytes: 1500, respawns: 2 } }, incidents: 1 })
    expect(view.current).toEqual({ at: t, channels: { ch: { peers: 4, egressBytesTotal: 1500 } } })
    t += 3 * 86_400_000
    await a.sample()
    expect(a.view().days.map((d) => d.date)).toEqual(['2026-11-24'])
    await a.close()
  })

  it('counts channels named like Object.prototype keys as any other, also after a reload (issue 39 item 9)', async (t) => {
    const path = join(tmpDir(t, 'bc-analytics-'), 'analytics.json')
    const ids = ['constructor', 'toString', '__proto__', 'ch']
    const at = Date.UTC(2026, 10, 21, 13, 5)
    const hour = async () => {
      const a = await openAnalytics({ enabled: true, retentionDays: 2, sampleMs: 3_600_000, path, now: () => at })
      a.start(() => ids.map((id) => ({ id, peers: 1, egressBytesTotal: 10 })))
      await a.sample()
      await a.close()
      return a.view().days[0]!.hours['13']!.channels
    }
    expect(Object.entries(await hour()).map(([id, c]) => [id, c.peers.samples])).toEqual(ids.map((id) => [id, 1]))
    expect(Object.entries(await hour()).map(([id, c]) => [id, c.peers.samples]).sort()).toEqual(ids.filter((id) => id !== '__proto__').map((id) => [id, 2]).concat([['__proto__', 1]]).sort())
  })
})

describe('ffmpeg stream lines', () => {
  it('reads the input codec and the output size, rate and sample rate', () => {
    const p = createProfileParser()
    for (const line of [
      "Input #0, mpegts, from 'http://x/index.m3u8':",
      '  Stream #0:0[0x100]: Video: h264 (High) ([27][0][0][0] / 0x001B), yuv420p(progressive), 1280x720 [SAR 1:1 DAR 16:9], 25 fps, 25 tbr, 90k tbn',
      '  Stream #0:1[0x101]: Audio: aac (LC) ([15][0][0][0] / 0x000F), 44100 Hz, stereo, fltp, 130 kb/s',
      'Stream mapping:',
      '  Stream #0:0 -> #0:0 (h264 (native) -> h264 (libx264))',
      "Output #0, hls, to '/s/index.m3u8':",
      '  Stream #0:0: Video: h264, yuv420p(progressive), 320x180 [SAR 1:1 DAR 16:9], q=2-31, 25 fps, 90k tbn',
      '  Stream #0:1: Audio: aac (LC), 48000 Hz, stereo, fltp, 128 kb/s'
    ]) p.feed(line)
    expect(p.input()).toEqual({ videoCodec: 'h264', audioCodec: 'aac', width: 1280, height: 720 })
    expect(p.output()).toEqual({ width: 320, height: 180, fps: 25, sampleRate: 48000 })
  })
})

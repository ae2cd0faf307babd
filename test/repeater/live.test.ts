import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runPlayerModel, type PlayerModelStats } from '@arus/lab'
import { createPlayer, loginWithRetry } from '@arus/sdk'
import { cleanupAll, createStack, startBroadcaster, startRepeater, tmpDir, waitFor, type Stack, type Testnet } from '@arus/testkit'

// Issue 42 "Done means", the local-testnet part: a repeater mirroring a live channel, 8
// re-seeding viewers playing through the hls.js-like player model. The origin (told to trust
// the repeater: ORIGIN_RELAY_KEYS) sends the channel about once, to the repeater, and the
// repeater's egress carries the rest; after a kill -9 of the repeater the viewers keep playing
// from the origin and each other with no stall longer than one segment; restarted on the same
// data dir, it catches up with the origin's head. Functional, not timed: byte counters, stall
// records, every wait bounded.
const ctx = { onTestFinished: () => {} }
let stack: Stack
const VIEWERS = 8
const SEGMENT_MS = 2000

beforeAll(async () => {
  stack = await createStack(ctx, { panel: { users: [{ name: 'alice', password: 'alice-pw' }] } })
}, 60_000)

afterAll(async () => { await cleanupAll() }, 60_000)

interface Channel { playlist: { bytesWritten: number } | null; egress: { uploadedBytes: number } | null }

describe('a repeater in front of a live origin', () => {
  it('carries the fan-out; a kill -9 costs the viewers no stall longer than a segment; it catches up after', async (t) => {
    const rep = await startRepeater(t, { panel: stack.panel })
    const bc = await startBroadcaster(t, { panel: stack.panel, env: { ORIGIN_RELAY_KEYS: rep.publicKey } })
    await bc.channel('hub', { hlsTime: 2, hlsListSize: 6 })
    await stack.panel.api('POST', '/api/users/alice/grants', { streamId: 'hub' })
    await rep.waitMirror('hub', { bytes: 1 })

    const players = Array.from({ length: VIEWERS }, () => {
      const p = createPlayer({
        panelPubKey: stack.panel.panelKey, storeDir: tmpDir(t, 'arus-viewer-'), swarm: { bootstrap: (stack.testnet as Testnet).bootstrap },
        uploadPolicy: 'reseed', tune: { timeoutMs: 20_000 }
      })
      t.onTestFinished(() => p.stop())
      return p
    })
    await Promise.all(players.map(async (p) => { await p.connect(); await loginWithRetry(p, 'alice', 'alice-pw', { attempts: 40, delayMs: 500 }) }))
    const stop = new AbortController()
    t.onTestFinished(() => stop.abort())
    const models = await Promise.all(players.map(async (p) => runPlayerModel({ url: (await p.resolve('hub')).url, signal: stop.signal })))
    await waitFor(() => models.every((m) => m.stats().joinMs !== null), { timeoutMs: 90_000, intervalMs: 250, message: 'every viewer plays' })

    // Steady state: the origin's bytes for the channel against the stream's own bytes.
    await new Promise((resolve) => setTimeout(resolve, 4 * SEGMENT_MS))
    const channel = () => bc.api<Channel>('GET', '/api/channels/hub')
    const repOut = async () => (await rep.health()).mirrors.find((m) => m.id === 'hub')?.bytesOut ?? 0
    const a = { ch: await channel(), rep: await repOut() }
    await new Promise((resolve) => setTimeout(resolve, 15 * SEGMENT_MS))
    const b = { ch: await channel(), rep: await repOut() }
    const written = b.ch.playlist!.bytesWritten - a.ch.playlist!.bytesWritten
    const origin = b.ch.egress!.uploadedBytes - a.ch.egress!.uploadedBytes
    const repeater = b.rep - a.rep
    const multiple = origin / written
    console.log(`stream ${written} B, origin sent ${origin} B (${multiple.toFixed(2)} x), repeater sent ${repeater} B (${(repeater / written).toFixed(2)} x)`)
    expect(written).toBeGreaterThan(0)
    expect(multiple).toBeLessThanOrEqual(1.3)
    expect(repeater).toBeGreaterThan(origin)

    // kill -9: the viewers carry on from the origin and each other.
    const before: PlayerModelStats[] = models.map((m) => m.stats())
    const killedAt = Date.now()
    await rep.kill()
    await new Promise((resolve) => setTimeout(resolve, 12 * SEGMENT_MS))
    const after = models.map((m) => m.stats())
    /** The stalls that began after the kill (or were still going on at it). */
    const sinceKill = (s: PlayerModelStats): number[] => s.stallLog.filter((x) => x.at + x.ms >= killedAt).map((x) => x.ms)
    console.log(after.map((s, i) => `viewer ${i}: stalls before the kill ${before[i]!.stalls}, after it ${JSON.stringify(sinceKill(s))} ms`).join('\n'))
    after.forEach((s, i) => {
      expect(s.playedMs - before[i]!.playedMs, `viewer ${i} played on`).toBeGreaterThan(8 * SEGMENT_MS)
      expect(Math.max(0, ...sinceKill(s)), `viewer ${i}: longest stall after the kill`).toBeLessThanOrEqual(SEGMENT_MS)
    })

    // Back on the same data dir: it mirrors the channel again and reaches the origin's head.
    await rep.start()
    const back = await rep.waitMirror('hub', { bytes: 1 })
    expect(back.bytesIn).toBeGreaterThan(0)
    await waitFor(async () => ((await rep.health()).mirrors.find((m) => m.id === 'hub')?.lag ?? 99) <= 1, { timeoutMs: 30_000, intervalMs: 250, message: 'the restarted repeater reaches the head' })
    const final = models.map((m) => m.stats())
    stop.abort()
    for (const [i, s] of final.entries()) expect(Math.max(0, ...sinceKill(s)), `viewer ${i}: longest stall from the kill to the catch-up`).toBeLessThanOrEqual(SEGMENT_MS)
  }, 240_000)
})

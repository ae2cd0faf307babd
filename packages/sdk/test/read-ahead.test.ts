import { describe, expect, it } from 'vitest'
import { createPlayer, type StatusEvent } from '@arus/sdk'
import { createTestnet, tmpDir, waitFor } from '@arus/testkit'
import { QUIET_MAX_MS, StartQuiet } from '../src/start-quiet.js'
import { startTestFeed } from './helpers/test-feed.js'

// docs/architecture.md "First frame": until the player asks for a second segment, a tune
// fetches only the segment the player starts at.
describe('the read-ahead\'s quiet start', () => {
  it('is quiet until a second distinct segment is asked for, or QUIET_MAX_MS after the first', () => {
    let now = 1_000
    const a = new StartQuiet(() => now)
    expect(a.quiet).toBe(true)
    now += 60_000 // no deadline before the player's first request
    expect(a.quiet).toBe(true)
    a.segmentRequested('/seg6.ts')
    a.segmentRequested('/seg6.ts') // a range of the same segment
    now += QUIET_MAX_MS - 1
    expect(a.quiet).toBe(true)
    a.segmentRequested('/seg7.ts')
    expect(a.quiet).toBe(false)
    a.segmentRequested('/seg6.ts')
    expect(a.quiet).toBe(false)

    const b = new StartQuiet(() => now)
    b.segmentRequested('/seg3.ts')
    now += QUIET_MAX_MS
    expect(b.quiet).toBe(false)
  })

  it('a cold tune fetches only its start segment until the player asks for a second one', async (t) => {
    const testnet = await createTestnet(t)
    const feed = await startTestFeed(t, testnet)
    await waitFor(() => (feed.writer.stats().segments >= 5 ? true : null), { timeoutMs: 30_000, message: 'five live segments' })
    const player = createPlayer({ storeDir: tmpDir(t), swarm: { bootstrap: testnet.bootstrap } })
    t.onTestFinished(() => player.stop())
    const statuses: StatusEvent[] = []
    player.on('status', (e) => statuses.push(e))
    const port = await player.serveFeed(feed.feedKey, feed.encryptionKey)
    const base = `http://127.0.0.1:${port}`
    await waitFor(() => statuses.some((s) => s.state === 'feed:ready') || null, { timeoutMs: 20_000, message: 'feed:ready' })

    // Which listed segments have any block in this viewer's store (a look inside the SDK).
    const drive = (player as unknown as { playback: { session (): { reader: { drive: any } } } }).playback.session().reader.drive
    const blobs = await drive.getBlobs()
    const local = async (names: string[]): Promise<string[]> => {
      const out: string[] = []
      for (const name of names) {
        // The entry's index nodes may not be local yet (a busy machine): fetching them reads no
        // segment block, which is all this looks at.
        const blob = (await drive.entry(`/${name}`, { timeout: 5_000 }))?.value.blob
        if (blob === undefined || blob === null) continue
        for (let i = blob.blockOffset; i < blob.blockOffset + blob.blockLength; i++) {
          if (await blobs.core.has(i)) { out.push(name); break }
        }
      }
      return out
    }
    const listed = async (): Promise<string[]> => {
      const text = await (await fetch(`${base}/index.m3u8`)).text()
      return [...text.matchAll(/^(seg\d+\.ts)$/gm)].map((m) => m[1]!)
    }
    const whole = async (name: string): Promise<number> => (await (await fetch(`${base}/${name}`)).arrayBuffer()).byteLength

    // The tune prefetched one segment, and the served playlist read nothing ahead.
    const first = await listed()
    const [start] = await waitFor(async () => { const l = await local(first); return l.length > 0 ? l : null }, { timeoutMs: 10_000, message: 'the start segment' })
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(await local(first)).toEqual([start])

    // The player's first segment (again, as a second range request would be): still quiet.
    expect(await whole(start!)).toBeGreaterThan(0)
    expect(await whole(start!)).toBeGreaterThan(0)
    await new Promise((resolve) => setTimeout(resolve, 300))
    const names = await listed()
    const i = names.indexOf(start!)
    expect(i).toBeGreaterThanOrEqual(0)
    expect(i).toBeLessThan(names.length - 2)
    expect(await local(names)).toEqual([start])

    // Its second segment ends the quiet: the ones after it are read ahead.
    const second = names[i + 1]!
    expect(await whole(second)).toBeGreaterThan(0)
    await waitFor(async () => ((await local(names)).includes(names[i + 2]!) ? true : null), { timeoutMs: 10_000, message: 'read-ahead after the second segment' })
    await player.stop()
  })
})

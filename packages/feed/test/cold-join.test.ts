import { expect, it } from 'vitest'
import { createTestnet, withTimeout } from '@arus/testkit'
import { key32, peerSwarm, playlistOf, readerOn, segmentBytes, storeIn, writerOn } from './helpers.js'

// A viewer that joins a live feed after many rotations must still get proofs for the
// blocks the window keeps. Regression: with unpatched hypercore 11.37.1, collecting drive
// metadata dropped Merkle nodes those proofs need, and the origin threw INVALID_OPERATION
// at every new reader (see patches/hypercore@11.37.1.patch).
it('a new reader joins a live feed after 40 rotations and reads the newest segment, with no origin error', async (t) => {
  const net = await createTestnet(t)
  const encryptionKey = key32()
  const w = storeIn(t)
  const writer = await writerOn(t, { store: w.store, encryptionKey })
  const origin = peerSwarm(net, w.store)
  const errors: string[] = []
  origin.on('connection', (conn: { on: (e: string, fn: (err: Error) => void) => void }) => conn.on('error', (err) => errors.push(err.message)))
  await withTimeout(origin.join(writer.discoveryKey, { server: true, client: false }).flushed(), 15_000, 'announce')
  const window = 4
  for (let n = 0; n < 40; n++) {
    await writer.putSegment(`seg${n}.ts`, segmentBytes(n, 150_000))
    const first = Math.max(0, n - window + 1)
    await writer.putPlaylist(playlistOf(Array.from({ length: n - first + 1 }, (_, i) => first + i)))
  }
  const r = storeIn(t)
  const reader = await readerOn(t, r.store, writer.feedKey, encryptionKey)
  peerSwarm(net, r.store).join(writer.discoveryKey, { server: false, client: true })
  const playlist = await reader.playlist({ timeoutMs: 15_000 })
  expect(playlist.segments.map((s) => s.uri)).toEqual(['seg36.ts', 'seg37.ts', 'seg38.ts', 'seg39.ts'])
  expect((await reader.readFile('/seg39.ts', { timeoutMs: 15_000 })).byteLength).toBe(150_000)
  expect(errors).toEqual([])
}, 60_000)

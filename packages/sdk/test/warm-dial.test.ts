import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import b4a from 'b4a'
import { topicFor } from '@arus/swarm'
import { createTestnet, tmpDir, waitFor } from '@arus/testkit'
import { collectWarm, dialWarm, loadWarm, saveWarm, WARM_FILE, WARM_NODES_TTL_MS, WARM_PEERS_TTL_MS } from '../src/warm-dial.js'

const fs = { mkdir, rm, readFile, writeFile, rename }
const key = (c: string): string => c.repeat(64)

describe('warm dial: the remembered state', () => {
  it('round-trips, drops stale entries, and ignores a damaged or foreign file', async (t) => {
    const dir = tmpDir(t, 'arus-warm-')
    const now = 10 * WARM_NODES_TTL_MS
    await saveWarm(fs, dir, {
      v: 1,
      savedAt: now,
      nodes: [{ host: '10.0.0.1', port: 49737, seenAt: now }, { host: '10.0.0.2', port: 49737, seenAt: now - WARM_NODES_TTL_MS - 1 }],
      peers: [
        { key: key('a'), role: 'panel', relays: [{ host: '10.0.0.1', port: 49737 }], served: 0, seenAt: now },
        { key: key('b'), role: 'peer', relays: [{ host: '10.0.0.1', port: 49737 }], served: 5, seenAt: now - WARM_PEERS_TTL_MS - 1 }
      ]
    })
    const loaded = await loadWarm(fs, dir, now + 1000)
    expect(loaded?.nodes.map((n) => n.host)).toEqual(['10.0.0.1'])
    expect(loaded?.peers.map((p) => p.key)).toEqual([key('a')])
    // Everything stale: nothing to use.
    expect(await loadWarm(fs, dir, now + WARM_NODES_TTL_MS + 1)).toBeNull()
    for (const bad of ['not json', '{"v":2,"savedAt":0,"nodes":[],"peers":[]}', JSON.stringify({ v: 1, savedAt: 0, nodes: [{ host: '', port: 0, seenAt: 0 }], peers: [] })]) {
      await writeFile(join(dir, WARM_FILE), bad)
      expect(await loadWarm(fs, dir, now)).toBeNull()
    }
    await rm(join(dir, WARM_FILE))
    expect(await loadWarm(fs, dir, now)).toBeNull()
  })

  it('remembers a peer it dialed, and a fresh swarm reaches it from that memory alone, without any topic', async (t) => {
    const net = await createTestnet(t, { size: 5 })
    const server = net.createSwarm()
    const topic = topicFor(b4a.alloc(32, 7))
    server.on('connection', (c) => { c.on('error', () => {}) })
    await server.join(topic, { server: true, client: false }).flushed()

    // First run: finds the server by its topic and dials it.
    const first = net.createSwarm()
    const connected = new Promise<void>((resolve) => first.once('connection', () => resolve()))
    first.join(topic, { server: false, client: true })
    await connected
    const serverKey = b4a.toString(server.keyPair.publicKey, 'hex')
    const state = collectWarm(first, null, new Map([[serverKey, 1000]]), null, Date.now())
    expect(state.peers).toEqual([expect.objectContaining({ key: serverKey, role: 'peer', served: 1000 })])
    expect(state.peers[0]!.relays.length).toBeGreaterThan(0)
    expect(state.nodes.length).toBeGreaterThan(0)
    const dir = tmpDir(t, 'arus-warm-')
    await mkdir(dir, { recursive: true })
    await saveWarm(fs, dir, state)
    await first.destroy()

    // Next start: a new swarm that joins no topic dials the server from the file.
    const loaded = await loadWarm(fs, dir, Date.now())
    const second = net.createSwarm()
    const reached = new Promise<string>((resolve) => second.once('connection', (c) => resolve(b4a.toString(c.remotePublicKey, 'hex'))))
    expect(dialWarm(second, loaded!, () => {})).toBe(1)
    await waitFor(async () => second.connections.size > 0, { timeoutMs: 15_000, message: 'the warm dial connected' })
    expect(await reached).toBe(serverKey)
  }, 40_000)
})

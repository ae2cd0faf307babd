import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlayer, loginWithRetry, type Player } from '@arus/sdk'
import { cleanupAll, createStack, startBroadcaster, tmpDir, waitFor, type Stack, type Testnet } from '@arus/testkit'

// Issue 7 "Done means": with 3 viewers watching one channel of a real broadcaster (its default
// origin upload shaping, reseed mode), at least one viewer received feed blocks from another
// viewer. Functional, not timed: bytes are counted per peer on the viewers' feed cores
// (diagnostics().feed.bytesByPeer) and every wait is bounded. A panel process, a broadcaster
// process running ffmpeg, and three SDK players on a local testnet. The three tune in at the
// same moment, so their first lookups find only the origin: they meet through the SDK's mesh
// refresh (docs/architecture.md "Origin egress").
const ctx = { onTestFinished: () => {} }
let stack: Stack

beforeAll(async () => {
  stack = await createStack(ctx, { panel: { users: [{ name: 'alice', password: 'alice-pw' }] } })
}, 60_000)

afterAll(async () => { await cleanupAll() }, 60_000)

/** Plays like an HLS client: polls the local playlist and fetches each new segment, until aborted. */
async function watch (url: string, signal: AbortSignal): Promise<void> {
  const seen = new Set<string>()
  while (!signal.aborted) {
    try {
      const list = await (await fetch(url, { signal })).text()
      for (const seg of list.split('\n').filter((l) => l.endsWith('.ts'))) {
        if (seen.has(seg)) continue
        seen.add(seg)
        await (await fetch(url.replace('index.m3u8', seg), { signal })).arrayBuffer()
      }
    } catch {
      // a held request timed out or the test is over: try again (or leave) below
    }
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
}

/** Bytes each viewer downloaded from the other viewers (by public key). */
function fromViewers (players: Player[]): number[] {
  const keys = players.map((p) => p.diagnostics().publicKey as string)
  return players.map((p, i) => {
    const byPeer = p.diagnostics().feed?.bytesByPeer ?? {}
    return keys.filter((_, j) => j !== i).reduce((sum, k) => sum + (byPeer[k]?.downloaded ?? 0), 0)
  })
}

describe('three reseeding viewers', () => {
  it('at least one viewer receives feed blocks from another viewer', async (t) => {
    const bc = await startBroadcaster(t, { panel: stack.panel })
    await bc.channel('trio', { hlsTime: 2, hlsListSize: 4 })
    await stack.panel.api('POST', '/api/users/alice/grants', { streamId: 'trio' })
    const players = [0, 1, 2].map(() => {
      const player = createPlayer({
        panelPubKey: stack.panel.panelKey, storeDir: tmpDir(t, 'arus-viewer-'), swarm: { bootstrap: (stack.testnet as Testnet).bootstrap },
        uploadPolicy: 'reseed', tune: { timeoutMs: 15_000 }
      })
      t.onTestFinished(() => player.stop())
      return player
    })
    await Promise.all(players.map(async (p) => { await p.connect(); await loginWithRetry(p, 'alice', 'alice-pw', { attempts: 40, delayMs: 500 }) }))
    const urls = await Promise.all(players.map(async (p) => (await p.resolve('trio')).url))
    const stop = new AbortController()
    t.onTestFinished(() => stop.abort())
    const playing = urls.map((u) => watch(u, stop.signal))
    await waitFor(() => fromViewers(players).some((n) => n > 0), { timeoutMs: 90_000, intervalMs: 500, message: 'a viewer received blocks from another viewer' })
    stop.abort()
    await Promise.all(playing)
    const received = fromViewers(players)
    expect(Math.max(...received)).toBeGreaterThan(0)
    // The origin's own counters agree that it did not serve every block to every viewer.
    const { egress } = await bc.api<{ egress: { shaping: unknown; uploadedBytes: number } }>('GET', '/api/channels/trio')
    expect(egress.shaping).not.toBeNull()
    expect(egress.uploadedBytes).toBeGreaterThan(0)
  }, 180_000)
})

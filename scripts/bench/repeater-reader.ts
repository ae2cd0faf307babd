/**
 * The reader child of `pnpm bench:repeater` (scripts/bench/repeater.ts starts it, niced):
 * BENCH_READERS keyless downloaders of one VOD title, each its own swarm and store, that
 * download the whole blob core from the repeater, clear it and start again, printing their
 * byte counts every second.
 */
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

export async function runReaders (): Promise<void> {
  const { createStore, createSwarm, parseBootstrap } = await import('@arus/swarm')
  const env = (name: string): string => { const v = process.env[name]; if (v === undefined || v === '') throw new Error(`${name} is not set`); return v }
  const bootstrap = parseBootstrap(env('BENCH_BOOTSTRAP'))
  const feedKey = Buffer.from(env('BENCH_FEED_KEY'), 'hex')
  const blobsKey = Buffer.from(env('BENCH_BLOBS_KEY'), 'hex')
  const dir = env('BENCH_STORE_DIR')
  let stopping = false
  const closers: Array<() => Promise<void>> = []
  const stop = async (): Promise<void> => {
    stopping = true
    for (const c of closers) await c().catch(() => {})
    process.exit(0)
  }
  process.once('SIGTERM', () => { void stop() })
  process.once('SIGINT', () => { void stop() })
  const stats = Array.from({ length: Number(env('BENCH_READERS')) }, () => ({ bytes: 0, rounds: 0, peers: 0 }))
  // Progress lines for the parent.
  setInterval(() => { process.stdout.write(`${JSON.stringify({ type: 'progress', readers: stats })}\n`) }, 1000)
  await Promise.all(stats.map(async (s, i) => {
    const store = createStore(join(dir, `r${i}`))
    const swarm = createSwarm({ bootstrap })
    closers.push(async () => { await swarm.destroy(); await store.close() })
    swarm.on('connection', (conn) => { store.replicate(conn) })
    const meta = store.get({ key: feedKey })
    const blobs: any = store.get({ key: blobsKey })
    await Promise.all([meta.ready(), blobs.ready()])
    blobs.on('download', (_index: number, bytes: number) => { s.bytes += bytes })
    // Client only: readers never announce, so they find the repeater and never each other.
    swarm.join(meta.discoveryKey!, { server: false, client: true })
    while (blobs.length === 0 && !stopping) { await blobs.update({ wait: true }).catch(() => {}); await sleep(100) }
    while (!stopping) {
      s.peers = blobs.peers.length
      const length = blobs.length
      await blobs.download({ start: 0, end: length }).done()
      s.rounds++
      await blobs.clear(0, length)
    }
  }))
}

await runReaders()

import { spawn, type ChildProcess } from 'node:child_process'
import { createFeedWriter, type FeedWriter, type FeedMirror } from '@arus/feed'
import { randomBytes, toHex } from '@arus/crypto'
import { registerTeardown, tmpDir, tmpStore, type Testnet, type TestContextLike } from '@arus/testkit'

/**
 * A live test-pattern feed driven from the test process: ffmpeg writes HLS into a scratch dir,
 * an `@arus/feed` writer mirrors it into an encrypted drive and a swarm seeds it (server role).
 * Used where a test needs a feed without the broadcaster daemon.
 */
export interface TestFeed {
  feedKey: string
  encryptionKey: string
  writer: FeedWriter
  /** Public key (hex) of the seeding swarm. */
  seederKey: string
  /** The feed's DHT topic (hypercore discovery key of the drive). */
  topic: Uint8Array
  /** Stops seeding (the swarm goes; ffmpeg and the writer keep running). */
  stopSeeding(): Promise<void>
  stop(): Promise<void>
}

export async function startTestFeed (t: TestContextLike, testnet: Testnet, init: { encryptionKey?: string; hlsTime?: number; vod?: boolean; keep?: 'all' | 'window' } = {}): Promise<TestFeed> {
  const encryptionKey = init.encryptionKey ?? toHex(randomBytes(32))
  const store = tmpStore(t)
  const writer = createFeedWriter({ store: store.namespace('feed'), encryptionKey: Buffer.from(encryptionKey, 'hex'), keep: init.keep ?? 'window' })
  await writer.ready()
  const swarm = testnet.createSwarm()
  swarm.on('connection', (conn) => store.replicate(conn))
  await swarm.join(writer.discoveryKey, { server: true, client: false }).flushed()
  const dir = tmpDir(t, 'arus-hls-')
  const hlsTime = init.hlsTime ?? 1
  const args = ['-hide_banner', '-loglevel', 'error', ...(init.vod === true ? [] : ['-re']),
    '-f', 'lavfi', '-i', `testsrc=size=320x240:rate=25${init.vod === true ? ':duration=8' : ''}`,
    '-f', 'lavfi', '-i', `sine=frequency=440${init.vod === true ? ':duration=8' : ''}`,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-g', '25', '-keyint_min', '25', '-sc_threshold', '0',
    '-c:a', 'aac', '-b:a', '64k', '-f', 'hls', '-hls_time', String(hlsTime),
    ...(init.vod === true ? ['-hls_list_size', '0', '-hls_playlist_type', 'vod'] : ['-hls_list_size', '5', '-hls_flags', 'delete_segments']),
    '-hls_segment_filename', `${dir}/seg%d.ts`, `${dir}/index.m3u8`]
  const ffmpeg: ChildProcess = spawn('ffmpeg', args, { stdio: ['ignore', 'ignore', 'pipe'] })
  ffmpeg.stderr?.resume()
  const mirror: FeedMirror = writer.mirror(dir, { pollMs: 100 })
  mirror.on('error', () => {})
  const stop = registerTeardown(t, async () => {
    if (ffmpeg.exitCode === null) {
      const exited = new Promise((resolve) => ffmpeg.once('exit', resolve))
      ffmpeg.kill('SIGKILL')
      await exited
    }
    await mirror.stop()
    await swarm.destroy()
    await writer.close()
  })
  return {
    feedKey: toHex(writer.feedKey),
    encryptionKey,
    writer,
    seederKey: toHex(swarm.keyPair.publicKey),
    topic: writer.discoveryKey,
    stopSeeding: () => swarm.destroy(),
    stop
  }
}

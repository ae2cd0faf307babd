import { expect, it } from 'vitest'
import { createPlayer, type StatusEvent } from '@arus/sdk'
import { createTestnet, tmpDir } from '@arus/testkit'
import { decode } from './helpers/ffmpeg.js'
import { startTestFeed } from './helpers/test-feed.js'

// serveFeed (spec 3 "Engine methods"): direct play from raw keys, no panel, no login.
it('serveFeed plays a feed from raw keys without a panel or a login', async (t) => {
  const testnet = await createTestnet(t)
  const feed = await startTestFeed(t, testnet)
  const player = createPlayer({ storeDir: tmpDir(t), swarm: { bootstrap: testnet.bootstrap } })
  t.onTestFinished(() => player.stop())
  const statuses: StatusEvent[] = []
  player.on('status', (e) => statuses.push(e))
  const port = await player.serveFeed(feed.feedKey, feed.encryptionKey)
  expect(port).toBe(player.port)
  expect(player.source()).toEqual({ streamId: null, source: 'p2p', url: `http://127.0.0.1:${port}/index.m3u8`, type: 'live' })
  const out = await decode(`http://127.0.0.1:${port}/index.m3u8`, 3)
  expect(out.stderr).toBe('')
  expect(out.code).toBe(0)
  expect(statuses.slice(0, 2)).toEqual([{ state: 'feed:open', streamId: null }, { state: 'feed:ready', streamId: null }])
  await expect(player.serveFeed('xx', feed.encryptionKey)).rejects.toMatchObject({ code: 'SDK_INVALID_ARGUMENT' })
  await player.stop()
})

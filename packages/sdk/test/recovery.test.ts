import { existsSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlayer } from '@arus/sdk'
import { cleanupAll, tmpDir } from '@arus/testkit'
import { decode } from './helpers/ffmpeg.js'
import { startBroadcaster } from './helpers/broadcaster.js'
import { api, connectAndLogin, createStack, panel, runPanel, type Stack } from './helpers/stack.js'

// spec 3 "storeDir": a corrupt replica store is detected, purged and the operation retried
// once; 'recovered' fires; the device identity (kept beside the replica) survives.
const ctx = { onTestFinished: () => {} }
let stack: Stack

beforeAll(async () => {
  stack = await createStack(ctx)
  await panel(stack, ['create-user', 'alice'], 'alice-pw\n')
  await runPanel(ctx, stack)
  await (await startBroadcaster(ctx, stack)).channel('news')
  await api(stack, 'POST', '/api/users/alice/grants', { streamId: 'news' })
}, 60_000)

afterAll(async () => { await cleanupAll() }, 60_000)

function player (storeDir: string) {
  return createPlayer({ panelPubKey: stack.panelKey, storeDir, swarm: { bootstrap: stack.testnet.bootstrap }, tune: { timeoutMs: 10_000 } })
}

describe('store corruption', () => {
  it.for([
    ['a damaged RocksDB CURRENT file', (dir: string) => writeFileSync(join(dir, 'corestore', 'db', 'CURRENT'), 'garbage')],
    ['every store file overwritten', (dir: string) => {
      for (const name of readdirSync(join(dir, 'corestore', 'db'))) writeFileSync(join(dir, 'corestore', 'db', name), Buffer.alloc(64, 7))
      writeFileSync(join(dir, 'corestore', 'CORESTORE'), Buffer.alloc(64, 7))
    }]
  ] as const)('%s is purged and recovered once with recovered; login and playback work', async ([, corrupt], t) => {
    const storeDir = tmpDir(t, 'arus-viewer-')
    const before = player(storeDir)
    await connectAndLogin(before, 'alice', 'alice-pw')
    const deviceId = before.session()?.deviceId
    await before.resolve('news')
    await before.stop()

    corrupt(storeDir)
    const after = player(storeDir)
    t.onTestFinished(() => after.stop())
    const recovered: Error[] = []
    after.on('recovered', (err) => recovered.push(err))
    await connectAndLogin(after, 'alice', 'alice-pw')
    expect(recovered).toHaveLength(1)
    expect(recovered[0]).toBeInstanceOf(Error)
    expect(after.session()?.deviceId).toBe(deviceId)
    const { url } = await after.resolve('news')
    expect((await decode(url, 2)).code).toBe(0)
    expect(recovered).toHaveLength(1)
    expect(existsSync(join(storeDir, 'device.json'))).toBe(true)
  })

  it('a healthy store is not purged', async (t) => {
    const storeDir = tmpDir(t, 'arus-viewer-')
    const a = player(storeDir)
    await connectAndLogin(a, 'alice', 'alice-pw')
    await a.stop()
    const b = player(storeDir)
    t.onTestFinished(() => b.stop())
    const recovered: Error[] = []
    b.on('recovered', (err) => recovered.push(err))
    await connectAndLogin(b, 'alice', 'alice-pw')
    expect(recovered).toEqual([])
  })
})

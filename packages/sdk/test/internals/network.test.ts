import fs from 'node:fs/promises'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createTestnet, tmpDir } from '@arus/testkit'
import { isStoreCorruption } from '../../src/corruption.js'
import { STORAGE_DEFAULTS } from '../../src/constants.js'
import { Network } from '../../src/network.js'
import type { FsModule } from '../../src/runtime.js'

async function network (t: { onTestFinished(fn: () => unknown): void }) {
  const testnet = await createTestnet(t)
  const storeDir = tmpDir(t, 'arus-net-')
  const recovered: Error[] = []
  const net = new Network({ storeDir, bootstrap: testnet.bootstrap, maxPeers: 8, writeBufferMiB: STORAGE_DEFAULTS.writeBufferMiB, announce: true, fs: fs as unknown as FsModule, onRecovered: (e) => recovered.push(e) })
  t.onTestFinished(() => net.destroy())
  await net.openStore()
  return { net, storeDir, recovered }
}

const corrupt = () => Object.assign(new Error('Invalid oplog'), { code: 'OPLOG_CORRUPT' })

describe('store recovery during a session', () => {
  it('purges the replica, reopens it and retries the operation once; recovered fires', async (t) => {
    const { net, storeDir, recovered } = await network(t)
    const before = net.store
    const marker = join(storeDir, 'corestore', 'marker')
    writeFileSync(marker, 'x')
    let calls = 0
    const result = await net.withRecovery(async () => {
      calls++
      if (calls === 1) throw corrupt()
      return 'ok'
    })
    expect(result).toBe('ok')
    expect(calls).toBe(2)
    expect(recovered).toHaveLength(1)
    expect(net.store).not.toBe(before)
    expect(existsSync(marker)).toBe(false)
  })

  it('a second corruption is SDK_STORE_CORRUPT; other errors are not retried', async (t) => {
    const { net, recovered } = await network(t)
    await expect(net.withRecovery(async () => { throw corrupt() })).rejects.toMatchObject({ code: 'SDK_STORE_CORRUPT' })
    expect(recovered).toHaveLength(1)
    let calls = 0
    await expect(net.withRecovery(async () => { calls++; throw new Error('REQUEST_TIMEOUT') })).rejects.toThrow('REQUEST_TIMEOUT')
    expect(calls).toBe(1)
  })
})

describe('isStoreCorruption', () => {
  it.each([
    [{ code: 'EPARTIALREAD' }, true],
    [{ code: 'OPLOG_CORRUPT' }, true],
    [{ code: 'DEVICE_FILE', message: 'Invalid device file, was moved unsafely' }, true],
    [{ code: 'EIO', message: 'CURRENT file does not end with newline' }, true],
    [{ message: 'wrapped', cause: { code: 'EPARTIALREAD' } }, true],
    [{ code: 'REQUEST_TIMEOUT', message: 'Request timed out' }, false],
    [{ code: 'BAD_ARGUMENT', message: 'manifest mismatch' }, false],
    [null, false]
  ])('%j → %s', (err, expected) => {
    expect(isStoreCorruption(err)).toBe(expected)
  })
})

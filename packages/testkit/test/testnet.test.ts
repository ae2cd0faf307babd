import { describe, expect, it } from 'vitest'
import { parseBootstrap } from '@arus/swarm'
import { createTestnet, pendingTeardowns, TestkitError } from '@arus/testkit'

describe('createTestnet', () => {
  it('runs on 127.0.0.1 and gives the bootstrap in both forms', async (t) => {
    const net = await createTestnet(t, { size: 2 })
    expect(net.bootstrapString).toMatch(/^127\.0\.0\.1:\d+$/)
    expect(parseBootstrap(net.bootstrapString)).toEqual(net.bootstrap)
  })

  it('builds loopback, unfirewalled swarms and destroys them with the testnet', async () => {
    const before = pendingTeardowns()
    const net = await createTestnet()
    expect(pendingTeardowns()).toBe(before + 1)
    const swarm = net.createSwarm({ maxPeers: 7 })
    expect(swarm.maxPeers).toBe(7)
    expect(swarm.dht.firewalled).toBe(false)
    await net.destroy()
    expect(swarm.destroyed).toBe(true)
    expect(pendingTeardowns()).toBe(before)
    await expect(net.destroy()).resolves.toBeUndefined()
    expect(() => net.createSwarm()).toThrowError(TestkitError)
  })

  it('rejects a bad size with TESTKIT_BAD_OPTION', async () => {
    await expect(createTestnet(undefined, { size: 0 })).rejects.toMatchObject({ code: 'TESTKIT_BAD_OPTION' })
  })
})

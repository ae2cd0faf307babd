import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import createTestnet from 'hyperdht/testnet.js'
import { createSwarm, SwarmError, tuneSocketBuffers } from '@arus/swarm'

let testnet: Awaited<ReturnType<typeof createTestnet>>
beforeAll(async () => { testnet = await createTestnet(3, { host: '127.0.0.1' }) })
afterAll(() => testnet.destroy())

function localSwarm () {
  const swarm = createSwarm({ bootstrap: testnet.bootstrap })
  onTestFinished(() => swarm.destroy())
  return swarm
}

describe('tuneSocketBuffers', () => {
  it('applies the requested sizes to the DHT sockets', async () => {
    const swarm = localSwarm()
    // Small then larger: the second result can only exceed the first if the call took effect.
    const small = await tuneSocketBuffers(swarm, { recvBufferBytes: 4096, sendBufferBytes: 4096 })
    const large = await tuneSocketBuffers(swarm, { recvBufferBytes: 1 << 17, sendBufferBytes: 1 << 17 })
    expect(small.recvBufferBytes).toBeGreaterThanOrEqual(4096)
    expect(large.recvBufferBytes).toBeGreaterThanOrEqual(1 << 17)
    expect(large.recvBufferBytes).toBeGreaterThan(small.recvBufferBytes)
    expect(large.sendBufferBytes).toBeGreaterThan(small.sendBufferBytes)
  })

  it.each([0, -1, 1.5])('rejects size %s with SWARM_BAD_OPTION', async (size) => {
    const swarm = localSwarm()
    await expect(tuneSocketBuffers(swarm, { recvBufferBytes: size })).rejects.toMatchObject({ code: 'SWARM_BAD_OPTION' })
  })

  it('rejects a destroyed swarm with SWARM_DESTROYED', async () => {
    const swarm = localSwarm()
    await swarm.destroy()
    const error = await tuneSocketBuffers(swarm, { recvBufferBytes: 4096 }).catch((err: unknown) => err)
    expect(error).toBeInstanceOf(SwarmError)
    expect((error as SwarmError).code).toBe('SWARM_DESTROYED')
  })
})

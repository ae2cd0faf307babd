import { describe, expect, it } from 'vitest'
import b4a from 'b4a'
import { topicFor, SwarmError } from '@arus/swarm'

describe('topicFor', () => {
  it('is unkeyed BLAKE2b-256 of the public key', () => {
    // Reference value from Python's hashlib.blake2b(bytes(range(32)), digest_size=32).
    const key = Uint8Array.from({ length: 32 }, (_v, i) => i)
    const topic = topicFor(key)
    expect(topic).toBeInstanceOf(Uint8Array)
    expect(topic.byteLength).toBe(32)
    expect(b4a.toString(topic, 'hex')).toBe('cb2f5160fc1f7e05a55ef49d340b48da2e5a78099d53393351cd579dd42503d6')
  })

  it('accepts a subarray view and does not hash the whole backing buffer', () => {
    const backing = new Uint8Array(40)
    for (let i = 0; i < 32; i++) backing[i + 4] = i
    expect(b4a.toString(topicFor(backing.subarray(4, 36)), 'hex')).toBe(
      'cb2f5160fc1f7e05a55ef49d340b48da2e5a78099d53393351cd579dd42503d6'
    )
  })

  it.each([
    ['31 bytes', new Uint8Array(31)],
    ['33 bytes', new Uint8Array(33)],
    ['a string', 'x'.repeat(32)],
    ['an array', Array.from({ length: 32 }, () => 0)]
  ])('rejects %s with SWARM_BAD_KEY', (_name, key) => {
    let error: unknown
    try { topicFor(key as unknown as Uint8Array) } catch (err) { error = err }
    expect(error).toBeInstanceOf(SwarmError)
    expect((error as SwarmError).code).toBe('SWARM_BAD_KEY')
  })
})

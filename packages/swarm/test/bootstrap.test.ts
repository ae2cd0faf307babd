import { describe, expect, it } from 'vitest'
import { formatBootstrap, isLoopbackBootstrap, parseBootstrap, SwarmError } from '@arus/swarm'

function codeOf (fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(SwarmError)
    return (err as SwarmError).code
  }
  return undefined
}

describe('parseBootstrap', () => {
  it('parses one and several entries, trimming whitespace', () => {
    expect(parseBootstrap('127.0.0.1:49737')).toEqual([{ host: '127.0.0.1', port: 49737 }])
    expect(parseBootstrap('  10.0.0.1:1 , node1.example.org:65535,localhost:3000  ')).toEqual([
      { host: '10.0.0.1', port: 1 },
      { host: 'node1.example.org', port: 65535 },
      { host: 'localhost', port: 3000 }
    ])
  })

  it('accepts hyperdht\'s suggestedIP@hostname form', () => {
    expect(parseBootstrap('88.99.3.86@node1.hyperdht.org:49737')).toEqual([
      { host: '88.99.3.86@node1.hyperdht.org', port: 49737 }
    ])
  })

  it('gives [] (the public DHT) for an empty or blank value', () => {
    expect(parseBootstrap('')).toEqual([])
    expect(parseBootstrap('   ')).toEqual([])
  })

  it.each([
    ['missing port', '127.0.0.1', '127.0.0.1'],
    ['empty port', '127.0.0.1:', '127.0.0.1:'],
    ['port 0', '127.0.0.1:0', '127.0.0.1:0'],
    ['port too large', '127.0.0.1:65536', '127.0.0.1:65536'],
    ['non-decimal port', '127.0.0.1:0x50', '127.0.0.1:0x50'],
    ['fractional port', 'a.b:1.5', 'a.b:1.5'],
    ['missing host', ':49737', ':49737'],
    ['IPv6 host', '[::1]:49737', '[::1]:49737'],
    ['host with a space', 'bad host:1', 'bad host:1'],
    ['octet out of range', '256.1.1.1@x.org:1', '256.1.1.1@x.org:1'],
    ['empty entry between commas', '127.0.0.1:1,,127.0.0.1:2', '""'],
    ['second entry bad', '127.0.0.1:1,nope', 'nope']
  ])('rejects %s with SWARM_BAD_BOOTSTRAP naming the entry', (_name, value, named) => {
    let error: SwarmError | undefined
    try { parseBootstrap(value) } catch (err) { error = err as SwarmError }
    expect(error).toBeInstanceOf(SwarmError)
    expect(error?.code).toBe('SWARM_BAD_BOOTSTRAP')
    expect(error?.message).toContain(named)
  })

  it('round-trips through formatBootstrap', () => {
    const value = '127.0.0.1:49737,example.org:1'
    expect(formatBootstrap(parseBootstrap(value))).toBe(value)
    expect(formatBootstrap([])).toBe('')
  })

  it('formatBootstrap rejects malformed nodes', () => {
    expect(codeOf(() => formatBootstrap([{ host: '127.0.0.1', port: 0 }]))).toBe('SWARM_BAD_BOOTSTRAP')
    expect(codeOf(() => formatBootstrap([{ host: 'a:b', port: 1 }]))).toBe('SWARM_BAD_BOOTSTRAP')
  })
})

describe('isLoopbackBootstrap', () => {
  it('is true only when every host is 127.x or localhost', () => {
    expect(isLoopbackBootstrap(parseBootstrap('127.0.0.1:1,127.1.2.3:2,localhost:3'))).toBe(true)
    expect(isLoopbackBootstrap(parseBootstrap('127.0.0.1:1,10.0.0.1:2'))).toBe(false)
    expect(isLoopbackBootstrap(parseBootstrap('localhost.example.org:1'))).toBe(false)
    expect(isLoopbackBootstrap(parseBootstrap('128.0.0.1:1'))).toBe(false)
  })

  it('is false for [] (the public DHT)', () => {
    expect(isLoopbackBootstrap([])).toBe(false)
  })
})

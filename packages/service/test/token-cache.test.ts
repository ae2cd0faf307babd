import { describe, expect, it } from 'vitest'
import { VerifiedTokens } from '../src/http/token-cache.js'

describe('verified admin tokens', () => {
  it('keeps the most recently used tokens, up to its bound, by their exact string', () => {
    const c = new VerifiedTokens<{ sub: string }>(2)
    c.add('t1', { sub: 'a' })
    c.add('t2', { sub: 'b' })
    expect(c.get('t1')).toEqual({ sub: 'a' }) // t1 is now the most recent
    c.add('t3', { sub: 'c' })
    expect(c.size).toBe(2)
    expect(c.get('t2')).toBeUndefined() // the least recently used left
    expect(c.get('t1')).toEqual({ sub: 'a' })
    expect(c.get('t3')).toEqual({ sub: 'c' })
    expect(c.get('t1 ')).toBeUndefined()
    c.delete('t1')
    expect(c.get('t1')).toBeUndefined()
    expect(() => new VerifiedTokens(0)).toThrow(RangeError)
  })
})

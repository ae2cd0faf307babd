import { describe, expect, it } from 'vitest'
import { GROUP_KEY_BYTES, boxKeyPair, openGrant, openGrants, openGroupChannelKey, randomBytes, sealGrant, sealGroupChannelKey, toHex } from '@arus/crypto'

// Grant groups (issue 43): a package's channel keys under one group key, the group key sealed to each holder.

describe('grant groups', () => {
  const groupKey = randomBytes(GROUP_KEY_BYTES)
  const streamKey = randomBytes(32)

  it('a channel key sealed for a group opens with the group key, for that group, generation and stream only', () => {
    const sealed = sealGroupChannelKey(groupKey, 'p.news', 3, 'ch1', streamKey)
    expect(sealed).toMatch(/^[0-9a-f]{144}$/)
    expect(Buffer.from(openGroupChannelKey(groupKey, 'p.news', 3, 'ch1', sealed)).equals(Buffer.from(streamKey))).toBe(true)
    expect(() => openGroupChannelKey(groupKey, 'p.news', 3, 'ch2', sealed)).toThrow(/did not authenticate/)
    expect(() => openGroupChannelKey(groupKey, 'p.sports', 3, 'ch1', sealed)).toThrow()
    expect(() => openGroupChannelKey(groupKey, 'p.news', 4, 'ch1', sealed)).toThrow()
    expect(() => openGroupChannelKey(randomBytes(32), 'p.news', 3, 'ch1', sealed)).toThrow()
  })

  it('the group key reaches a holder sealed to its pub, as a grant does', () => {
    const user = boxKeyPair()
    const sealed = sealGrant(groupKey, user.publicKey)
    const opened = openGrant(sealed, user.publicKey, user.secretKey)
    expect(Buffer.from(opened).equals(Buffer.from(groupKey))).toBe(true)
    const entry = sealGroupChannelKey(opened, 'auto', 1, 'x', streamKey)
    expect(Buffer.from(openGroupChannelKey(groupKey, 'auto', 1, 'x', entry)).equals(Buffer.from(streamKey))).toBe(true)
  })

  it('refuses bad input', () => {
    expect(() => sealGroupChannelKey(randomBytes(16), 'auto', 1, 'x', streamKey)).toThrow(/groupKey/)
    expect(() => sealGroupChannelKey(groupKey, 'auto', 0, 'x', streamKey)).toThrow(/gen/)
    expect(() => sealGroupChannelKey(groupKey, 'auto', 1, 'x', randomBytes(31))).toThrow(/streamKey/)
  })

  it('openGrants: own grants, then every held group of the right generation; the rest skipped', () => {
    const user = boxKeyPair()
    const other = boxKeyPair()
    const k = (n: number) => randomBytes(32).map(() => n)
    const news = randomBytes(32)
    const old = randomBytes(32)
    const records = {
      'p.news': { gen: 2, keys: { a: sealGroupChannelKey(news, 'p.news', 2, 'a', k(1)), b: sealGroupChannelKey(news, 'p.news', 2, 'b', k(2)) } },
      'p.old': { gen: 5, keys: { c: sealGroupChannelKey(old, 'p.old', 5, 'c', k(3)) } }
    }
    const keys = openGrants({
      pub: toHex(user.publicKey),
      wrapped: { m: sealGrant(k(4), user.publicKey), x: sealGrant(k(5), other.publicKey) },
      groups: {
        'p.news': { gen: 2, key: sealGrant(news, user.publicKey) },
        'p.old': { gen: 4, key: sealGrant(old, user.publicKey) }, // the record moved on to generation 5
        'p.gone': { gen: 1, key: sealGrant(old, user.publicKey) } // no record
      }
    }, records, user.secretKey)
    expect([...keys.keys()].sort()).toEqual(['a', 'b', 'm'])
    expect(keys.get('a')![0]).toBe(1)
    expect(keys.get('b')![0]).toBe(2)
    expect(keys.get('m')![0]).toBe(4)
  })
})

import { describe, expect, it } from 'vitest'
import type { StreamRecord, UserRecord } from '@arus/catalog'
import type { RegisterPayload } from '@arus/rpc'
import { enrollDevice } from '../src/rpc/auth.js'
import { applyRegister } from '../src/rpc/register.js'
import { applyMeta, newStreamRecord } from '../src/ops/stream-meta.js'
import { scopeMatches } from '../src/ops/publishers.js'

const feedKey = 'ab'.repeat(32)
const payload = (over: Partial<RegisterPayload> = {}): RegisterPayload =>
  ({ v: 1, streamId: 'news', type: 'live', feedKey, key: 'cd'.repeat(32), ts: 1, ...over }) as RegisterPayload

describe('register ownership rules (spec 1 "Catalog record" rules 1-2)', () => {
  it('seeds title, description and category only when creating', () => {
    const created = applyRegister(null, payload({ title: 'T', description: 'D', category: ['C'] }), 'site1') as StreamRecord
    expect(created).toMatchObject({ title: 'T', description: 'D', category: ['C'], origin: 'site1', isLive: true, status: 'live' })
    const admin = { ...created, title: 'Admin title', order: 3, featured: true, poster: 'https://art.example/p.png' }
    const again = applyRegister(admin, payload({ title: 'Other', category: ['X'] }), 'site1') as StreamRecord
    expect(again).toMatchObject({ title: 'Admin title', category: ['C'], order: 3, featured: true, poster: 'https://art.example/p.png' })
  })

  it('never erases the redirect class', () => {
    const redirect = applyMeta(newStreamRecord({ title: 'R' }), { url: 'https://cdn.example/live.m3u8' })
    expect(redirect).toMatchObject({ redirect: true, feedKey: null, isLive: true, status: 'live' })
    expect(applyRegister(redirect, payload(), 'site1')).toBe(redirect)
  })

  it('clears blobsKey when feedKey rotates, keeps it otherwise; stamps origin null for legacy', () => {
    const withBlobs = { ...(applyRegister(null, payload(), 'site1') as StreamRecord), blobsKey: 'ef'.repeat(32) }
    expect((applyRegister(withBlobs, payload(), 'site1') as StreamRecord).blobsKey).toBe('ef'.repeat(32))
    const rotated = applyRegister(withBlobs, payload({ feedKey: '12'.repeat(32) }), null) as StreamRecord
    expect(rotated).toMatchObject({ blobsKey: null, feedKey: '12'.repeat(32), origin: null })
  })

  it('vod registers carry durationSec and status, never isLive; a type mismatch is refused', () => {
    const vod = applyRegister(null, payload({ type: 'vod', durationSec: 5400 }), 'lib') as StreamRecord
    expect(vod).toMatchObject({ type: 'vod', durationSec: 5400, status: 'available' })
    expect(vod).not.toHaveProperty('isLive')
    expect(applyRegister(vod, payload({ type: 'live' }), 'lib')).toMatchObject({ error: 'invalid-request' })
  })
})

describe('scope globs', () => {
  it('matches * and ? and nothing else specially', () => {
    expect(scopeMatches(['news*'], 'news.1')).toBe(true)
    expect(scopeMatches(['sport-?'], 'sport-1')).toBe(true)
    expect(scopeMatches(['sport-?'], 'sport-12')).toBe(false)
    expect(scopeMatches(['a.b'], 'aXb')).toBe(false)
    expect(scopeMatches([], 'x')).toBe(false)
  })
})

describe('device enrollment', () => {
  const user = { devices: [], tokenVersion: 0, maxDevices: 2 } as unknown as UserRecord
  it('returns the same object for a repeated login (nothing to write) and evicts the oldest past maxDevices', () => {
    const one = enrollDevice(user, 'a', 'tv', 1)
    expect(enrollDevice(one, 'a', 'tv', 2)).toBe(one)
    const three = enrollDevice(enrollDevice(one, 'b', '', 3), 'c', '', 4)
    expect(three.devices.map((d) => d.deviceId)).toEqual(['b', 'c'])
    const bumped = { ...one, tokenVersion: 1 }
    expect(enrollDevice(bumped, 'a', 'tv', 5).devices[0]!.tokenVersion).toBe(1)
  })
})

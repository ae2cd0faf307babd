import { describe, expect, it } from 'vitest'
import { generateSigningKeyPair, signToken, toHex } from '@arus/crypto'
import { checkSession, sessionLive, type SessionDb } from '@arus/sdk'

const panel = generateSigningKeyPair()
const now = Date.parse('2026-11-21T12:00:00Z')
const payload = { v: 1, typ: 'session', sub: 'alice', dev: 'dd'.repeat(32), tv: 2, iat: now, exp: now + 3600_000 }

describe('checkSession (offline)', () => {
  it('returns the payload of a valid token', () => {
    expect(checkSession(toHex(panel.publicKey), signToken(payload, panel.secretKey), { now })).toEqual(payload)
  })

  it('returns null for an expired, forged, malformed or non-session token', () => {
    const other = generateSigningKeyPair()
    expect(checkSession(panel.publicKey, signToken(payload, panel.secretKey), { now: payload.exp })).toBeNull()
    expect(checkSession(panel.publicKey, signToken(payload, other.secretKey), { now })).toBeNull()
    expect(checkSession(panel.publicKey, 'garbage', { now })).toBeNull()
    expect(checkSession(panel.publicKey, signToken({ ...payload, typ: 'admin' }, panel.secretKey), { now })).toBeNull()
  })

  it('refuses a malformed panel key', () => {
    expect(() => checkSession('zz', 'x')).toThrow(expect.objectContaining({ code: 'SDK_INVALID_ARGUMENT' }))
  })
})

describe('sessionLive (online)', () => {
  const db = (user: Awaited<ReturnType<SessionDb['getUser']>>): SessionDb => ({ getUser: async () => user })
  const device = { deviceId: payload.dev, tokenVersion: 2, status: 'active' }
  const p = payload as Parameters<typeof sessionLive>[1]

  it('is live while the device is enrolled with the same tokenVersion', async () => {
    expect(await sessionLive(db({ status: 'active', tokenVersion: 2, devices: [device] }), p)).toBe(true)
  })

  it('is not live after a tokenVersion bump, a device revoke, a disable or a delete', async () => {
    expect(await sessionLive(db({ status: 'active', tokenVersion: 3, devices: [{ ...device, tokenVersion: 3 }] }), p)).toBe(false)
    expect(await sessionLive(db({ status: 'active', tokenVersion: 2, devices: [] }), p)).toBe(false)
    expect(await sessionLive(db({ status: 'disabled', tokenVersion: 2, devices: [device] }), p)).toBe(false)
    expect(await sessionLive(db(null), p)).toBe(false)
  })
})

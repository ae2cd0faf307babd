import { describe, expect, it } from 'vitest'
import {
  COMMON_ERROR_REASONS, ErrorReply, HelloReply, LoginRequest, MAX_REQUEST_BYTES, METHODS, PROTOCOL_VERSION,
  RPC_ERROR_CODES, RPC_ERROR_REASONS, RegisterRequest, SESSION_SIGNED_PREFIX, SessionReply, SessionRequest, rekeySignedBytes, sessionSignedBytes
} from '@arus/rpc'
import { hexOf } from './helpers.js'

describe('constants and tables', () => {
  it('fixes the wire constants', () => {
    expect(PROTOCOL_VERSION).toBe(1)
    expect(MAX_REQUEST_BYTES).toBe(65536)
    expect(Object.keys(METHODS)).toEqual(['hello', 'login', 'session', 'register', 'report'])
  })

  it('lists only known reasons per method, and codes are package-prefixed', () => {
    for (const spec of Object.values(METHODS)) for (const r of spec.errors) expect(RPC_ERROR_REASONS).toHaveProperty(r)
    for (const r of COMMON_ERROR_REASONS) expect(RPC_ERROR_REASONS).toHaveProperty(r)
    for (const code of Object.keys(RPC_ERROR_CODES)) expect(code).toMatch(/^RPC_[A-Z_]+$/)
  })
})

describe('schemas', () => {
  const login = { v: 1, username: 'alice', blinded: hexOf(32), powNonce: '00' }

  it('accept valid values and reject unknown keys', () => {
    expect(LoginRequest.safeParse(login).success).toBe(true)
    expect(LoginRequest.safeParse({ ...login, extra: 1 }).success).toBe(false)
    expect(HelloReply.safeParse({ v: 1, challenge: hexOf(32), difficulty: 32 }).success).toBe(true)
    expect(HelloReply.safeParse({ v: 1, challenge: hexOf(32), difficulty: 33 }).success).toBe(false)
    expect(HelloReply.safeParse({ v: 1, challenge: hexOf(32), difficulty: 1.5 }).success).toBe(false)
  })

  it('demand lowercase hex of the exact length', () => {
    for (const blinded of [hexOf(32).toUpperCase(), hexOf(31), hexOf(33), `${hexOf(32).slice(1)}g`]) {
      expect(LoginRequest.safeParse({ ...login, blinded }).success).toBe(false)
    }
    for (const powNonce of ['', '0', '00'.repeat(33), 'FF']) expect(LoginRequest.safeParse({ ...login, powNonce }).success).toBe(false)
    expect(LoginRequest.safeParse({ ...login, powNonce: '00'.repeat(32) }).success).toBe(true)
  })

  it('bound strings and counts', () => {
    const session = { v: 1, username: 'a', deviceId: hexOf(32), authSig: hexOf(64), deviceSig: hexOf(64) }
    expect(SessionRequest.safeParse(session).success).toBe(true)
    expect(SessionRequest.safeParse({ ...session, label: 'l'.repeat(64) }).success).toBe(true)
    expect(SessionRequest.safeParse({ ...session, label: 'l'.repeat(65) }).success).toBe(false)
    expect(SessionRequest.safeParse({ ...session, username: 'u'.repeat(65) }).success).toBe(false)
    expect(SessionRequest.safeParse({ ...session, username: '\ud800' }).success).toBe(false)
    const reply = { v: 1, token: 't', expiresAt: 1, tokenVersion: 0, deviceCount: 0 }
    expect(SessionReply.safeParse(reply).success).toBe(true)
    expect(SessionReply.safeParse({ ...reply, tokenVersion: -1 }).success).toBe(false)
  })

  it('session may carry a rekey: schedule 2 only, hex of the right sizes, both signatures, nothing else', () => {
    const session = { v: 1, username: 'alice', deviceId: hexOf(32), authSig: hexOf(64), deviceSig: hexOf(64) }
    const rekey = { keyVersion: 2, salt: hexOf(16), verifier: hexOf(32), authPub: hexOf(32), encPriv: hexOf(72), oldSig: hexOf(64), newSig: hexOf(64) }
    expect(SessionRequest.safeParse({ ...session, rekey }).success).toBe(true)
    expect(SessionRequest.safeParse({ ...session, rekey: { ...rekey, keyVersion: 1 } }).success).toBe(false)
    expect(SessionRequest.safeParse({ ...session, rekey: { ...rekey, keyVersion: 3 } }).success).toBe(false)
    expect(SessionRequest.safeParse({ ...session, rekey: { ...rekey, salt: hexOf(32) } }).success).toBe(false)
    expect(SessionRequest.safeParse({ ...session, rekey: { ...rekey, encPriv: hexOf(39) } }).success).toBe(false)
    expect(SessionRequest.safeParse({ ...session, rekey: { ...rekey, encPriv: hexOf(513) } }).success).toBe(false)
    expect(SessionRequest.safeParse({ ...session, rekey: { ...rekey, argon: { opslimit: 1, memlimit: 8192 } } }).success).toBe(false)
    const { newSig: _n, ...unsigned } = rekey
    expect(SessionRequest.safeParse({ ...session, rekey: unsigned }).success).toBe(false)
    const reply = { v: 1, token: 't', expiresAt: 1, tokenVersion: 0, deviceCount: 0 }
    expect(SessionReply.safeParse({ ...reply, keyVersion: 2 }).success).toBe(true)
    expect(SessionReply.safeParse({ ...reply, keyVersion: 0 }).success).toBe(false)
  })

  it('rekeySignedBytes: its own first line, every field and the cost on a line, bad input refused', () => {
    const fields = { salt: hexOf(16), verifier: hexOf(32), authPub: hexOf(32), encPriv: hexOf(72) }
    const text = new TextDecoder().decode(rekeySignedBytes(hexOf(32, 1), 'alice', hexOf(32, 2), fields, { opslimit: 3, memlimit: 65536 }))
    expect(text).toBe(['arus/rekey/v2', hexOf(32, 1), 'alice', hexOf(32, 2), fields.salt, fields.verifier, fields.authPub, fields.encPriv, '3', '65536'].join('\n'))
    expect(text.startsWith(SESSION_SIGNED_PREFIX)).toBe(false)
    expect(() => rekeySignedBytes(hexOf(32, 1), 'alice', hexOf(32, 2), { ...fields, salt: 'x\nsalt' }, { opslimit: 3, memlimit: 65536 })).toThrow(/hex/)
    expect(() => rekeySignedBytes(hexOf(32, 1), 'alice', hexOf(32, 2), fields, { opslimit: 1.5, memlimit: 65536 })).toThrow(/whole/)
    expect(() => rekeySignedBytes(hexOf(31, 1), 'alice', hexOf(32, 2), fields, { opslimit: 3, memlimit: 65536 })).toThrow(/32 bytes/)
  })

  it('register checks the payload text inside the request', () => {
    const payload = JSON.stringify({ v: 1, streamId: 's', feedKey: null, key: hexOf(32), ts: 0 })
    expect(RegisterRequest.safeParse({ v: 1, payload, sig: hexOf(64) }).success).toBe(true)
    expect(RegisterRequest.safeParse({ v: 1, payload: payload.replace('"s"', '"s/"'), sig: hexOf(64) }).success).toBe(false)
  })

  it('error replies: known reasons only, locked needs retryAfter', () => {
    expect(ErrorReply.safeParse({ v: 1, error: 'bad-pow' }).success).toBe(true)
    expect(ErrorReply.safeParse({ v: 1, error: 'nope' }).success).toBe(false)
    expect(ErrorReply.safeParse({ v: 1, error: 'locked' }).success).toBe(false)
    expect(ErrorReply.safeParse({ v: 1, error: 'locked', retryAfter: 60 }).success).toBe(true)
  })
})

describe('sessionSignedBytes', () => {
  const challenge = Buffer.alloc(32, 0xaa)
  const device = Buffer.alloc(32, 0xbb)

  it('builds the documented text, from bytes or hex alike', () => {
    const expected = `arus/session/v1\n${'aa'.repeat(32)}\nalice\n${'bb'.repeat(32)}`
    expect(Buffer.from(sessionSignedBytes(challenge, 'alice', device)).toString('utf8')).toBe(expected)
    expect(Buffer.from(sessionSignedBytes('aa'.repeat(32), 'alice', 'bb'.repeat(32))).equals(Buffer.from(expected))).toBe(true)
    expect(Buffer.from(sessionSignedBytes(challenge, 'zoë', device)).toString('hex')).toContain(Buffer.from('\nzoë\n').toString('hex'))
  })

  it('throws RPC_INVALID_ARGUMENT on wrong lengths or usernames', () => {
    const bad: Array<[Uint8Array | string, string, Uint8Array | string]> = [
      [challenge.subarray(1), 'alice', device], [challenge, 'alice', 'BB'.repeat(32)], [challenge, '', device], [challenge, 'u'.repeat(65), device]
    ]
    for (const args of bad) expect(() => sessionSignedBytes(...args)).toThrow(expect.objectContaining({ code: 'RPC_INVALID_ARGUMENT' }))
  })
})

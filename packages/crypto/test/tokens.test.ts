import { describe, expect, it } from 'vitest'
import { MAX_TOKEN_LENGTH, decodeTokenUnverified, generateSigningKeyPair, sign, signToken, verifyToken } from '@arus/crypto'
import { codeOf } from './helpers.js'

const panel = generateSigningKeyPair()
const NOW = 1_800_000_000_000
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url')

describe('signToken / verifyToken', () => {
  const payload = { sub: 'dev-1', user: 'ålice ✓ 😀', tokenVersion: 3, exp: NOW + 60_000 }
  const token = signToken(payload, panel.secretKey)

  it('is base64url(payload JSON) "." base64url(signature over exactly those bytes)', () => {
    const [p, s] = token.split('.')
    const bytes = Buffer.from(p!, 'base64url')
    expect(JSON.parse(bytes.toString('utf8'))).toEqual(payload)
    expect(b64url(bytes)).toBe(p)
    expect(s).toBe(b64url(sign(new Uint8Array(bytes), panel.secretKey)))
    expect(token).not.toMatch(/[=+/]/)
  })

  it('verifies and returns the payload while now < exp', () => {
    expect(verifyToken(token, panel.publicKey, { now: NOW })).toEqual(payload)
    expect(decodeTokenUnverified(token)).toEqual(payload)
  })

  it('accepts exactly the signed bytes even when the JSON is not what JSON.stringify would write', () => {
    const bytes = new TextEncoder().encode('{ "exp" : 1900000000000 , "a":[1, 2] }')
    const handMade = b64url(bytes) + '.' + b64url(sign(bytes, panel.secretKey))
    expect(verifyToken(handMade, panel.publicKey, { now: NOW })).toEqual({ exp: 1900000000000, a: [1, 2] })
  })

  it('expired: CRYPTO_TOKEN_EXPIRED at and after exp; default clock is Date.now()', () => {
    expect(codeOf(() => verifyToken(token, panel.publicKey, { now: payload.exp }))).toBe('CRYPTO_TOKEN_EXPIRED')
    expect(codeOf(() => verifyToken(token, panel.publicKey, { now: payload.exp + 1 }))).toBe('CRYPTO_TOKEN_EXPIRED')
    const past = signToken({ exp: Date.now() - 1000 }, panel.secretKey)
    expect(codeOf(() => verifyToken(past, panel.publicKey))).toBe('CRYPTO_TOKEN_EXPIRED')
    const future = signToken({ exp: Date.now() + 3_600_000 }, panel.secretKey)
    expect(verifyToken(future, panel.publicKey).exp).toBeGreaterThan(Date.now())
  })

  it('tampered payload, tampered signature and wrong key: CRYPTO_TOKEN_BAD_SIGNATURE', () => {
    const [p, s] = token.split('.') as [string, string]
    const forged = b64url(new TextEncoder().encode(JSON.stringify({ ...payload, tokenVersion: 4 })))
    expect(codeOf(() => verifyToken(`${forged}.${s}`, panel.publicKey, { now: NOW }))).toBe('CRYPTO_TOKEN_BAD_SIGNATURE')
    const sigBytes = Buffer.from(s, 'base64url')
    sigBytes[10]! ^= 1
    expect(codeOf(() => verifyToken(`${p}.${b64url(sigBytes)}`, panel.publicKey, { now: NOW }))).toBe('CRYPTO_TOKEN_BAD_SIGNATURE')
    expect(codeOf(() => verifyToken(token, generateSigningKeyPair().publicKey, { now: NOW }))).toBe('CRYPTO_TOKEN_BAD_SIGNATURE')
  })

  it('the signature is checked before expiry: an expired forgery is a bad signature', () => {
    const other = signToken({ exp: NOW - 1 }, generateSigningKeyPair().secretKey)
    expect(codeOf(() => verifyToken(other, panel.publicKey, { now: NOW }))).toBe('CRYPTO_TOKEN_BAD_SIGNATURE')
  })

  it('malformed: CRYPTO_TOKEN_MALFORMED', () => {
    const [p, s] = token.split('.') as [string, string]
    const signed = (text: string): string => {
      const bytes = new TextEncoder().encode(text)
      return b64url(bytes) + '.' + b64url(sign(bytes, panel.secretKey))
    }
    const invalidUtf8 = Uint8Array.of(0x7b, 0xc0, 0xaf, 0x7d)
    const cases: unknown[] = [
      '', 'abc', p, `${p}.`, `.${s}`, `${p}.${s}.${s}`, `${p}=.${s}`, `${p}.${s}==`, `${p}+.${s}`,
      `${p}.${s.slice(0, -4)}`, // short signature
      `${p}.${s.slice(0, -1)}${B64URL[B64URL.indexOf(s.slice(-1)) ^ 1]}`, // same bytes, non-zero unused trailing bit
      'x'.repeat(MAX_TOKEN_LENGTH + 1),
      42, null,
      signed('[1,2]'), signed('"str"'), signed('{"exp":"soon"}'), signed('{"no":"exp"}'), signed('{'),
      b64url(invalidUtf8) + '.' + b64url(sign(invalidUtf8, panel.secretKey))
    ]
    for (const bad of cases) {
      expect(codeOf(() => verifyToken(bad as string, panel.publicKey, { now: NOW })), String(bad).slice(0, 40)).toBe('CRYPTO_TOKEN_MALFORMED')
    }
    expect(codeOf(() => decodeTokenUnverified('nope'))).toBe('CRYPTO_TOKEN_MALFORMED')
  })

  it('validates signToken and verifyToken arguments', () => {
    expect(codeOf(() => signToken({ sub: 'x' } as never, panel.secretKey))).toBe('CRYPTO_BAD_INPUT')
    expect(codeOf(() => signToken({ exp: Infinity }, panel.secretKey))).toBe('CRYPTO_BAD_INPUT')
    expect(codeOf(() => signToken({ exp: 1, n: 1n }, panel.secretKey))).toBe('CRYPTO_BAD_INPUT')
    expect(codeOf(() => signToken('x' as never, panel.secretKey))).toBe('CRYPTO_BAD_TYPE')
    expect(codeOf(() => signToken({ exp: 1, big: 'x'.repeat(MAX_TOKEN_LENGTH) }, panel.secretKey))).toBe('CRYPTO_BAD_INPUT')
    expect(codeOf(() => signToken({ exp: 1 }, panel.publicKey))).toBe('CRYPTO_BAD_LENGTH')
    expect(codeOf(() => verifyToken(token, panel.secretKey))).toBe('CRYPTO_BAD_LENGTH')
    expect(codeOf(() => verifyToken(token, panel.publicKey, { now: Number.NaN }))).toBe('CRYPTO_BAD_INPUT')
    expect(codeOf(() => verifyToken(token, panel.publicKey, null as never))).toBe('CRYPTO_BAD_TYPE')
  })
})

import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { PSEUDONYM_SEPARATOR, randomBytes, reportPseudonym } from '@arus/crypto'
import { codeOf } from './helpers.js'

/** HMAC-SHA256(32 × 0x01, 'alice' NUL 'aa' × 32), first 16 hex: what @arus/reports has always stored. */
const KNOWN_ANSWER = 'dc38fc2d6f12fe3a'

describe('reportPseudonym', () => {
  const salt = randomBytes(32)

  it('is the first 16 hex chars of HMAC-SHA256(salt, userId NUL deviceId)', () => {
    for (const [user, device] of [['alice', 'ab'.repeat(32)], ['Zoë 😀', 'device-ü']]) {
      const expected = createHmac('sha256', salt).update(`${user}\u0000${device}`, 'utf8').digest('hex').slice(0, 16)
      expect(reportPseudonym(salt, user!, device!)).toBe(expected)
    }
    expect(PSEUDONYM_SEPARATOR).toBe('\u0000')
  })

  it('gives the pseudonyms stored reports already carry (known answer: salt 32 × 0x01, alice, 32 × 0xaa)', () => {
    // Every stored report's `reporter` was made with the NUL separator: a different function
    // would silently re-pseudonymize every viewer (spec 1: only a deliberate salt rotation may).
    expect(reportPseudonym(new Uint8Array(32).fill(1), 'alice', 'aa'.repeat(32))).toBe(KNOWN_ANSWER)
  })

  it('is stable for the same inputs and changes with user, device and salt', () => {
    const p = reportPseudonym(salt, 'alice', 'dev1')
    expect(p).toMatch(/^[0-9a-f]{16}$/)
    expect(reportPseudonym(salt, 'alice', 'dev1')).toBe(p)
    expect(reportPseudonym(salt, 'alice', 'dev2')).not.toBe(p)
    expect(reportPseudonym(salt, 'alicf', 'dev1')).not.toBe(p)
    expect(reportPseudonym(randomBytes(32), 'alice', 'dev1')).not.toBe(p)
  })

  it('refuses ids containing the separator (ambiguous encodings), empty ids and bad salts', () => {
    expect(codeOf(() => reportPseudonym(salt, 'a\u0000b', 'c'))).toBe('CRYPTO_BAD_INPUT')
    expect(codeOf(() => reportPseudonym(salt, 'a', 'b\u0000c'))).toBe('CRYPTO_BAD_INPUT')
    expect(codeOf(() => reportPseudonym(salt, '', 'c'))).toBe('CRYPTO_BAD_INPUT')
    expect(codeOf(() => reportPseudonym(salt, 'a', 7 as never))).toBe('CRYPTO_BAD_TYPE')
    expect(codeOf(() => reportPseudonym(randomBytes(16), 'a', 'b'))).toBe('CRYPTO_BAD_LENGTH')
  })
})

import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CRYPTO_ERROR_CODES, CryptoError } from '@arus/crypto'

const pkg = fileURLToPath(new URL('..', import.meta.url))
const sources = readdirSync(join(pkg, 'src')).filter((f) => f.endsWith('.ts'))
const source = (f: string): string => readFileSync(join(pkg, 'src', f), 'utf8')

describe('error codes', () => {
  it('are CRYPTO_-prefixed SCREAMING_SNAKE keys equal to nothing but themselves', () => {
    for (const code of Object.keys(CRYPTO_ERROR_CODES)) expect(code).toMatch(/^CRYPTO_[A-Z0-9_]+$/)
    const err = new CryptoError('CRYPTO_BAD_HEX')
    expect(err.code).toBe('CRYPTO_BAD_HEX')
    expect(err.message).toBe(CRYPTO_ERROR_CODES.CRYPTO_BAD_HEX)
    expect(err).toBeInstanceOf(Error)
  })

  it('the README documents exactly the codes in CRYPTO_ERROR_CODES', () => {
    const readme = readFileSync(join(pkg, 'README.md'), 'utf8')
    const documented = new Set(readme.match(/CRYPTO_[A-Z0-9_]+(?=`? *\|)/g))
    expect([...documented].sort()).toEqual(Object.keys(CRYPTO_ERROR_CODES).sort())
  })

  it('every code used in src is in the table, and every table entry is used', () => {
    const used = new Set<string>()
    for (const f of sources.filter((f) => f !== 'errors.ts')) for (const m of source(f).matchAll(/CRYPTO_[A-Z0-9_]+/g)) if (m[0] !== 'CRYPTO_ERROR_CODES') used.add(m[0])
    for (const m of source('errors.ts').matchAll(/new CryptoError\('(CRYPTO_[A-Z0-9_]+)'/g)) used.add(m[1]!)
    expect([...used].sort()).toEqual(Object.keys(CRYPTO_ERROR_CODES).sort())
  })
})

describe('portability (the viewer SDK bundles this package)', () => {
  it('src imports no Node built-ins, uses no Buffer, TextEncoder or console', () => {
    for (const f of sources) {
      const text = source(f).replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '') // code only, not comments
      expect(text, f).not.toMatch(/from '(node:)?(fs|path|crypto|os|buffer|util|worker_threads)'/)
      expect(text, f).not.toMatch(/\bBuffer\b|\bTextEncoder\b|\bTextDecoder\b|\bconsole\./)
    }
  })
})

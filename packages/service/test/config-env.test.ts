import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { env, loadConfig, isArusError } from '@arus/service'
import type { EnvSchema } from '@arus/service'

/** Parses one variable X through `schema`; returns the value or the error message. */
function one<T> (schema: EnvSchema<T>, value: string | undefined): T {
  return loadConfig(z.object({ X: schema }), { X: value }).X as T
}
function failure (schema: EnvSchema<unknown>, value: string | undefined): string {
  try {
    one(schema, value)
  } catch (err) {
    if (isArusError(err) && err.code === 'SERVICE_INVALID_CONFIG') return err.message
    throw err
  }
  throw new Error('expected SERVICE_INVALID_CONFIG')
}

describe('env.bool', () => {
  it('accepts 1/0/true/false/yes/no in any case, empty or unset gives the default', () => {
    for (const v of ['1', 'true', 'TRUE', 'yes', ' Yes ']) expect(one(env.bool(false), v)).toBe(true)
    for (const v of ['0', 'false', 'False', 'no', 'NO']) expect(one(env.bool(true), v)).toBe(false)
    expect(one(env.bool(true), '')).toBe(true)
    expect(one(env.bool(false), undefined)).toBe(false)
  })
  it('rejects anything else and is required without a default', () => {
    expect(failure(env.bool(true), 'on')).toBe('invalid environment: X must be one of 1, 0, true, false, yes, no (got "on")')
    expect(failure(env.bool(), undefined)).toBe('invalid environment: X is required')
  })
})

describe('env.int', () => {
  it('parses integers within bounds, with default', () => {
    expect(one(env.int({ min: 1, default: 5 }), undefined)).toBe(5)
    expect(one(env.int({ min: 1, default: 5 }), '')).toBe(5)
    expect(one(env.int({ min: 1, max: 10 }), ' 10 ')).toBe(10)
    expect(one(env.int({ min: -3 }), '-3')).toBe(-3)
    expect(one(env.int(), '0')).toBe(0)
  })
  it('names the range in the reason', () => {
    expect(failure(env.int({ min: 1 }), 'abc')).toBe('invalid environment: X must be an integer >= 1 (got "abc")')
    expect(failure(env.int({ min: 1 }), '0')).toBe('invalid environment: X must be an integer >= 1 (got "0")')
    expect(failure(env.int({ min: 1, max: 10 }), '11')).toContain('must be an integer between 1 and 10')
    expect(failure(env.int({ max: 10 }), '1.5')).toContain('must be an integer <= 10')
    expect(failure(env.int(), '1e3')).toContain('X must be an integer (got "1e3")')
    expect(failure(env.int(), '99999999999999999999')).toContain('must be an integer')
  })
  it('refuses a default outside its own bounds and min > max', () => {
    expect(() => env.int({ min: 1, default: 0 })).toThrow(expect.objectContaining({ code: 'SERVICE_INVALID_ARGUMENT' }))
    expect(() => env.int({ min: 2, max: 1 })).toThrow(expect.objectContaining({ code: 'SERVICE_INVALID_ARGUMENT' }))
  })
})

describe('env.str', () => {
  it('returns the value verbatim, default when unset, undefined when optional', () => {
    expect(one(env.str(), ' a b ')).toBe(' a b ')
    expect(one(env.str({ default: 'dflt' }), undefined)).toBe('dflt')
    expect(one(env.str({ optional: true }), '')).toBeUndefined()
  })
  it('checks lengths and presence', () => {
    expect(failure(env.str({ min: 3 }), 'ab')).toBe('invalid environment: X must be at least 3 characters (got "ab")')
    expect(failure(env.str({ max: 2 }), 'abc')).toContain('X must be at most 2 characters')
    expect(failure(env.str(), '')).toBe('invalid environment: X is required')
  })
})

describe('env.enum', () => {
  it('accepts listed values only', () => {
    expect(one(env.enum(['ram', 'disk'], 'disk'), undefined)).toBe('disk')
    expect(one(env.enum(['ram', 'disk'], 'disk'), 'ram')).toBe('ram')
    expect(failure(env.enum(['ram', 'disk'], 'disk'), 'RAM')).toBe('invalid environment: X must be one of ram, disk (got "RAM")')
  })
})

describe('env.port', () => {
  it('accepts 0..65535', () => {
    expect(one(env.port(3000), undefined)).toBe(3000)
    expect(one(env.port(3000), '0')).toBe(0)
    expect(one(env.port(3000), '65535')).toBe(65535)
    expect(failure(env.port(3000), '65536')).toContain('X must be a port number between 0 and 65535 (got "65536")')
    expect(failure(env.port(3000), 'http')).toContain('must be a port number')
  })
})

describe('env.host', () => {
  it('accepts IPv4, IPv6 and host names', () => {
    expect(one(env.host('127.0.0.1'), undefined)).toBe('127.0.0.1')
    for (const h of ['0.0.0.0', '::1', 'fe80::1', 'localhost', 'panel.example.org', 'a-b.c1']) expect(one(env.host('127.0.0.1'), h)).toBe(h)
  })
  it('rejects the rest', () => {
    for (const h of ['http://x', 'a b', '-bad.example', 'x..y', 'host:80']) {
      expect(failure(env.host('127.0.0.1'), h)).toContain('X must be a host name or IP address')
    }
  })
})

describe('env.hex', () => {
  it('checks the byte length and lowercases', () => {
    const key = 'AB'.repeat(32)
    expect(one(env.hex({ bytes: 32 }), key)).toBe('ab'.repeat(32))
    expect(one(env.hex({ bytes: 32, optional: true }), undefined)).toBeUndefined()
    expect(failure(env.hex({ bytes: 32 }), 'ab'.repeat(31))).toContain('X must be 64 hex characters (32 bytes)')
    expect(failure(env.hex({ bytes: 4 }), 'zzzzzzzz')).toContain('must be 8 hex characters (4 bytes)')
    expect(failure(env.hex({ bytes: 4 }), undefined)).toBe('invalid environment: X is required')
  })
})

describe('env.list', () => {
  it('splits on commas, trims, drops empties; unset is []', () => {
    expect(one(env.list(), ' a, b ,,c ')).toEqual(['a', 'b', 'c'])
    expect(one(env.list(), undefined)).toEqual([])
    expect(one(env.list({ default: ['x:1', 'y:2'] }), '')).toEqual(['x:1', 'y:2'])
  })
})

describe('env.url', () => {
  it('accepts http(s) and normalizes', () => {
    expect(one(env.url(), 'http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000/')
    expect(one(env.url({ https: true }), 'https://hooks.example.org/x')).toBe('https://hooks.example.org/x')
    expect(one(env.url({ optional: true }), undefined)).toBeUndefined()
    expect(one(env.url({ default: 'http://localhost:3000' }), undefined)).toBe('http://localhost:3000/')
  })
  it('rejects other schemes, non-URLs, and http when https is required', () => {
    expect(failure(env.url(), 'ftp://x')).toContain('X must be an http:// or https:// URL (got "ftp://x")')
    expect(failure(env.url(), 'not a url')).toContain('must be an http:// or https:// URL')
    expect(failure(env.url({ https: true }), 'http://x')).toContain('X must be an https:// URL')
  })
})

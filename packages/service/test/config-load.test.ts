import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { configDocs, env, loadConfig, isArusError } from '@arus/service'
import type { ArusError } from '@arus/service'

const schema = z.object({
  DATA_DIR: env.str().describe('Directory for private state.'),
  CONTROL_HOST: env.host('127.0.0.1').describe('Address the control server binds.'),
  CONTROL_PORT: env.port(3000).describe('Port of the control server.'),
  LOCKOUT_SECONDS: env.int({ min: 1, default: 900 }).describe('Lockout duration.'),
  ESCROW_EXPORT: env.bool(false).describe('Enable the escrow export route.'),
  BOOTSTRAP: env.list().describe('DHT bootstrap nodes, host:port,...'),
  PANEL_PUBKEY: env.hex({ bytes: 32, optional: true }).describe('Panel public key.'),
  WEBHOOK_SECRET: env.str({ optional: true, min: 16 }),
  PLAIN: z.string().default('p').describe('A plain zod field.'),
  PLAIN_OPTIONAL: z.string().optional()
})

function catchError (fn: () => unknown): ArusError {
  try {
    fn()
  } catch (err) {
    if (isArusError(err)) return err
    throw err
  }
  throw new Error('expected an error')
}

describe('loadConfig', () => {
  it('parses, applies defaults and ignores unknown variables', () => {
    const cfg = loadConfig(schema, { DATA_DIR: '/data', PATH: '/usr/bin', HOME: '/root', BOOTSTRAP: '127.0.0.1:49737' })
    expect(cfg).toEqual({
      DATA_DIR: '/data',
      CONTROL_HOST: '127.0.0.1',
      CONTROL_PORT: 3000,
      LOCKOUT_SECONDS: 900,
      ESCROW_EXPORT: false,
      BOOTSTRAP: ['127.0.0.1:49737'],
      PANEL_PUBKEY: undefined,
      WEBHOOK_SECRET: undefined,
      PLAIN: 'p',
      PLAIN_OPTIONAL: undefined
    })
    expect(Object.keys(cfg)).not.toContain('PATH')
  })

  it('returns a deep-frozen result', () => {
    const cfg = loadConfig(schema, { DATA_DIR: '/data', BOOTSTRAP: 'a:1,b:2' })
    expect(Object.isFrozen(cfg)).toBe(true)
    expect(Object.isFrozen(cfg.BOOTSTRAP)).toBe(true)
    expect(() => { (cfg as { DATA_DIR: string }).DATA_DIR = '/x' }).toThrow(TypeError)
    expect(() => { (cfg.BOOTSTRAP as string[]).push('c:3') }).toThrow(TypeError)
  })

  it('names every bad variable and why, in one error', () => {
    const err = catchError(() => loadConfig(schema, { LOCKOUT_SECONDS: 'abc', CONTROL_PORT: '70000', ESCROW_EXPORT: 'maybe' }))
    expect(err.code).toBe('SERVICE_INVALID_CONFIG')
    expect(err.status).toBe(500)
    expect(err.message).toBe('invalid environment: DATA_DIR is required; ' +
      'CONTROL_PORT must be a port number between 0 and 65535 (got "70000"); ' +
      'LOCKOUT_SECONDS must be an integer >= 1 (got "abc"); ' +
      'ESCROW_EXPORT must be one of 1, 0, true, false, yes, no (got "maybe")')
    expect(err.details?.variables).toEqual([
      { name: 'DATA_DIR', reason: 'is required' },
      { name: 'CONTROL_PORT', reason: 'must be a port number between 0 and 65535' },
      { name: 'LOCKOUT_SECONDS', reason: 'must be an integer >= 1' },
      { name: 'ESCROW_EXPORT', reason: 'must be one of 1, 0, true, false, yes, no' }
    ])
  })

  it('never echoes the value of a secret-named variable', () => {
    const secret = 'hunter2-short'
    const key = 'not-hex-' + 'q'.repeat(56)
    const err = catchError(() => loadConfig(schema, { DATA_DIR: '/d', WEBHOOK_SECRET: secret, PANEL_PUBKEY: key }))
    expect(err.message).toContain('WEBHOOK_SECRET must be at least 16 characters (value hidden)')
    expect(err.message).toContain('PANEL_PUBKEY must be 64 hex characters (32 bytes) (value hidden)')
    const everything = JSON.stringify({ message: err.message, details: err.details, json: err.toJSON() })
    expect(everything).not.toContain(secret)
    expect(everything).not.toContain(key)
    for (const name of ['ADMIN_PASS', 'PUBLISHER_KEY', 'BOT_TOKEN', 'my_secret']) {
      const e = catchError(() => loadConfig(z.object({ [name]: env.int() }), { [name]: 'sensitive-value' }))
      expect(e.message).toBe(`invalid environment: ${name} must be an integer (value hidden)`)
    }
  })

  it('reports plain zod fields by name too, and truncates long echoed values', () => {
    const err = catchError(() => loadConfig(z.object({ N: z.string().min(3), M: z.string(), L: env.int() }), { N: 'a', L: 'x'.repeat(500) }))
    expect(err.message).toMatch(/^invalid environment: N is invalid: .+ \(got "a"\); M is required; L must be an integer \(got "x{80}\.\.\."\)$/)
  })

  it('reads process.env by default', () => {
    const name = 'ARUS_SERVICE_TEST_VALUE'
    process.env[name] = '42'
    try {
      expect(loadConfig(z.object({ [name]: env.int() }))[name]).toBe(42)
    } finally {
      delete process.env[name]
    }
  })
})

describe('configDocs', () => {
  it('lists every variable with description, default, type and required flag', () => {
    const docs = configDocs(schema)
    expect(docs.map((d) => d.name)).toEqual(Object.keys(schema.shape))
    const by = Object.fromEntries(docs.map((d) => [d.name, d]))
    expect(by.DATA_DIR).toEqual({ name: 'DATA_DIR', default: undefined, description: 'Directory for private state.', type: 'string', required: true, secret: false })
    expect(by.CONTROL_PORT).toMatchObject({ default: '3000', required: false, description: 'Port of the control server.' })
    expect(by.CONTROL_PORT?.type).toMatch(/^port/)
    expect(by.LOCKOUT_SECONDS).toMatchObject({ default: '900', type: 'integer >= 1', required: false })
    expect(by.ESCROW_EXPORT).toMatchObject({ default: 'false', type: 'boolean' })
    expect(by.BOOTSTRAP).toMatchObject({ default: '', required: false })
    expect(by.PANEL_PUBKEY).toMatchObject({ default: undefined, required: false, secret: true, type: 'hex, 32 bytes' })
    expect(by.WEBHOOK_SECRET).toMatchObject({ description: '', secret: true, required: false })
    expect(by.PLAIN).toMatchObject({ default: 'p', description: 'A plain zod field.', type: 'string', required: false })
    expect(by.PLAIN_OPTIONAL).toMatchObject({ default: undefined, required: false })
  })

  it('matches what loadConfig applies (one source of truth)', () => {
    const cfg = loadConfig(schema, { DATA_DIR: '/d' }) as Record<string, unknown>
    for (const doc of configDocs(schema)) {
      if (doc.default === undefined || doc.name === 'BOOTSTRAP') continue
      expect(String(cfg[doc.name])).toBe(doc.default)
    }
  })
})

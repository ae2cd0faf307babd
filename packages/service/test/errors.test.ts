import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { ArusError, ServiceError, SERVICE_ERROR_CODES, isArusError } from '@arus/service'

describe('ArusError', () => {
  it('carries code, status (default 500), details, and serializes to the HTTP envelope only', () => {
    const err = new ArusError('PANEL_NOT_FOUND', 'no such user', { status: 404, details: { user: 'ann' } })
    expect(err).toBeInstanceOf(Error)
    expect(err.code).toBe('PANEL_NOT_FOUND')
    expect(err.status).toBe(404)
    expect(err.details).toEqual({ user: 'ann' })
    expect(err.toJSON()).toEqual({ error: { code: 'PANEL_NOT_FOUND', message: 'no such user' } })
    expect(JSON.parse(JSON.stringify(err))).toEqual({ error: { code: 'PANEL_NOT_FOUND', message: 'no such user' } })
    expect(new ArusError('X_Y', 'm').status).toBe(500)
  })

  it('keeps the cause for logs without putting it in the envelope', () => {
    const cause = new Error('disk on fire')
    const err = new ArusError('X_Y', 'outer', { cause })
    expect(err.cause).toBe(cause)
    expect(JSON.stringify(err)).not.toContain('disk on fire')
  })

  it('can be extended by other packages and is recognized by isArusError', () => {
    class CatalogError extends ArusError {}
    const sub = new CatalogError('CATALOG_X', 'x', { status: 409 })
    expect(isArusError(sub)).toBe(true)
    expect(isArusError(ServiceError.fileNotFound('/a'))).toBe(true)
    expect(isArusError(new Error('plain'))).toBe(false)
    expect(isArusError({ code: 'X', status: 500, message: 'fake' })).toBe(false)
    expect(isArusError(null)).toBe(false)
    expect(isArusError('SERVICE_FILE_IO')).toBe(false)
  })
})

describe('ServiceError', () => {
  it('factories use the status of the code table', () => {
    const errs = [
      ServiceError.invalidConfig('invalid environment: X is required'),
      ServiceError.invalidArgument('bad'),
      ServiceError.fileIo('write', '/p', Object.assign(new Error('x'), { code: 'EACCES' })),
      ServiceError.fileNotFound('/p'),
      ServiceError.corruptFile('/p', 'not valid JSON'),
      ServiceError.validationFailed('invalid request: body.x: required', ['body.x']),
      ServiceError.unauthorized(),
      ServiceError.badCredentials(),
      ServiceError.forbidden('not an admin token'),
      ServiceError.notFound('GET', '/nope'),
      ServiceError.payloadTooLarge(10),
      ServiceError.unsupportedMediaType('content type must be image/*'),
      ServiceError.locked(30),
      ServiceError.verifyBusy(),
      ServiceError.verifyTimeout(30_000),
      ServiceError.internal(),
      ServiceError.adminNotFound('ops'),
      ServiceError.adminExists('ops'),
      ServiceError.noPassword()
    ]
    expect(errs.map((e) => e.code).sort()).toEqual(Object.keys(SERVICE_ERROR_CODES).sort())
    for (const e of errs) {
      expect(e).toBeInstanceOf(ArusError)
      expect(e.status).toBe(SERVICE_ERROR_CODES[e.code].status)
      expect(e.toJSON()).toEqual({ error: { code: e.code, message: e.message } })
    }
  })

  it('fileIo names the path and the OS error code', () => {
    const e = ServiceError.fileIo('write', '/data/state.json', Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }))
    expect(e.message).toBe('could not write /data/state.json: EACCES')
    expect(e.details).toMatchObject({ path: '/data/state.json', osCode: 'EACCES' })
  })

  it('every code is SCREAMING_SNAKE, prefixed SERVICE_, and documented in the README', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8')
    for (const [code, entry] of Object.entries(SERVICE_ERROR_CODES)) {
      expect(code).toMatch(/^SERVICE_[A-Z0-9_]+$/)
      expect(entry.meaning.length).toBeGreaterThan(0)
      expect(readme).toMatch(new RegExp(`\\|\\s*\`${code}\`\\s*\\|\\s*${entry.status}\\s*\\|`))
    }
  })
})

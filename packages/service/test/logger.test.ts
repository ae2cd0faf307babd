import { describe, expect, it } from 'vitest'
import { createLogger, logFormatFromEnv, formatPretty, REDACTED } from '@arus/service'

/** A destination that collects what pino writes. */
function sink (): { write: (s: string) => void, text: () => string, records: () => Array<Record<string, any>> } {
  const chunks: string[] = []
  return {
    write: (s: string) => { chunks.push(s) },
    text: () => chunks.join(''),
    records: () => chunks.join('').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l))
  }
}

describe('createLogger (json)', () => {
  it('writes one JSON object per line with name, level, msg and fields', () => {
    const out = sink()
    const log = createLogger({ name: 'panel', destination: out })
    log.info({ user: 'ann', n: 3 }, 'user created')
    log.debug('hidden at info')
    log.warn('careful')
    const recs = out.records()
    expect(out.text().endsWith('\n')).toBe(true)
    expect(recs).toHaveLength(2)
    expect(recs[0]).toMatchObject({ name: 'panel', level: 30, msg: 'user created', user: 'ann', n: 3 })
    expect(typeof recs[0]?.time).toBe('number')
    expect(recs[1]).toMatchObject({ level: 40, msg: 'careful' })
  })

  it('honours the level', () => {
    const out = sink()
    const log = createLogger({ name: 'x', level: 'debug', destination: out })
    log.debug('now visible')
    log.trace('still hidden')
    expect(out.records().map((r) => r.msg)).toEqual(['now visible'])
  })

  it('redacts secrets at the top level, one level down, in headers, in child bindings and deep inside', () => {
    const out = sink()
    const log = createLogger({ name: 'x', destination: out })
    const secrets = ['S-pass', 'S-phrase', 'S-sk', 'S-key', 'S-stream', 'S-tok', 'S-ver', 'S-enc', 'S-auth', 'S-deep', 'S-arr', 'S-child', 'S-err', 'S-cookie']
    log.info({
      password: 'S-pass',
      user: { passphrase: 'S-phrase', secretKey: 'S-sk', name: 'ann' },
      stream: { key: 'S-key', streamKey: 'S-stream', id: 'news' },
      session: { token: 'S-tok' },
      record: { verifier: 'S-ver', encPriv: 'S-enc' },
      req: { method: 'GET', headers: { authorization: 'S-auth', cookie: 'S-cookie', host: 'h' } },
      a: { b: { c: { password: 'S-deep' } } },
      list: [{ token: 'S-arr' }]
    }, 'lots of secrets')
    log.child({ token: 'S-child', component: 'rpc' }).info('child line')
    log.error({ err: Object.assign(new Error('boom'), { token: 'S-err' }) }, 'failed')
    const text = out.text()
    for (const s of secrets) expect(text).not.toContain(s)
    const [first, child, failed] = out.records()
    expect(first).toMatchObject({
      password: REDACTED,
      user: { passphrase: REDACTED, secretKey: REDACTED, name: 'ann' },
      stream: { key: REDACTED, streamKey: REDACTED, id: 'news' },
      session: { token: REDACTED },
      record: { verifier: REDACTED, encPriv: REDACTED },
      req: { method: 'GET', headers: { authorization: REDACTED, cookie: REDACTED, host: 'h' } },
      a: { b: { c: { password: REDACTED } } },
      list: [{ token: REDACTED }]
    })
    expect(child).toMatchObject({ token: REDACTED, component: 'rpc' })
    expect(failed?.err).toMatchObject({ message: 'boom', token: REDACTED })
  })

  it('does not modify the logged object', () => {
    const out = sink()
    const obj = { a: { b: { password: 'x' } }, user: { token: 't' } }
    createLogger({ name: 'x', destination: out }).info(obj, 'm')
    expect(obj).toEqual({ a: { b: { password: 'x' } }, user: { token: 't' } })
  })

  it('rejects bad options with SERVICE_INVALID_ARGUMENT', () => {
    expect(() => createLogger({ name: '' })).toThrow(expect.objectContaining({ code: 'SERVICE_INVALID_ARGUMENT' }))
    expect(() => createLogger({ name: 'x', level: 'loud' as 'info' })).toThrow(expect.objectContaining({ code: 'SERVICE_INVALID_ARGUMENT' }))
  })
})

describe('createLogger (pretty)', () => {
  it('writes HH:MM:SS level name: msg key=value lines, redacted', () => {
    const out = sink()
    const log = createLogger({ name: 'broadcaster', format: 'pretty', destination: out })
    log.info({ channel: 'news', segments: 3, title: 'Evening news', password: 'S-pw' }, 'feed started')
    log.warn('slate on')
    const lines = out.text().split('\n').filter((l) => l !== '')
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d info {2}broadcaster: feed started channel=news segments=3 title="Evening news" password=\[redacted\]$/)
    expect(lines[1]).toMatch(/^\d\d:\d\d:\d\d warn {2}broadcaster: slate on$/)
    expect(out.text()).not.toContain('S-pw')
    expect(out.text()).not.toContain('"level"')
  })

  it('prints errors as type: message followed by an indented stack', () => {
    const out = sink()
    createLogger({ name: 'x', format: 'pretty', destination: out }).error({ err: new TypeError('bad thing') }, 'failed')
    const [head, ...stack] = out.text().trimEnd().split('\n')
    expect(head).toMatch(/ error x: failed err="TypeError: bad thing"$/)
    expect(stack.length).toBeGreaterThan(0)
    for (const line of stack) expect(line.startsWith('    at ')).toBe(true)
  })

  it('formatPretty uses the record time', () => {
    const t = new Date(2026, 0, 2, 3, 4, 5).getTime()
    expect(formatPretty({ time: t, level: 50, name: 'n', msg: 'm', k: { a: 1 } })).toBe('03:04:05 error n: m k={"a":1}\n')
  })
})

describe('logFormatFromEnv', () => {
  it('LOG_FORMAT=json switches to json; unset or empty means pretty', () => {
    expect(logFormatFromEnv({ LOG_FORMAT: 'json' })).toBe('json')
    expect(logFormatFromEnv({ LOG_FORMAT: 'pretty' })).toBe('pretty')
    expect(logFormatFromEnv({})).toBe('pretty')
    expect(logFormatFromEnv({ LOG_FORMAT: '' })).toBe('pretty')
  })
  it('any other value aborts with SERVICE_INVALID_CONFIG naming LOG_FORMAT', () => {
    expect(() => logFormatFromEnv({ LOG_FORMAT: 'xml' })).toThrow('invalid environment: LOG_FORMAT must be one of json, pretty (got "xml")')
  })
})

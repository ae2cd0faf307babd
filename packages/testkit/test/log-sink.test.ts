import { describe, expect, it } from 'vitest'
import { createLogSink } from '@arus/testkit'

describe('createLogSink', () => {
  it('captures NDJSON synchronously and parses complete lines', () => {
    const sink = createLogSink()
    sink.stream.write('{"level":30,"msg":"one"}\n')
    sink.stream.write(Buffer.from('{"level":40,"msg":"two"}\n{"level":50,'))
    expect(sink.lines()).toEqual(['{"level":30,"msg":"one"}', '{"level":40,"msg":"two"}'])
    expect(sink.entries()).toEqual([{ level: 30, msg: 'one' }, { level: 40, msg: 'two' }])
    expect(sink.text().endsWith('{"level":50,')).toBe(true)
  })

  it('reassembles a multi-byte character split across writes', () => {
    const sink = createLogSink()
    const bytes = Buffer.from('{"msg":"é"}\n')
    sink.stream.write(bytes.subarray(0, 9))
    sink.stream.write(bytes.subarray(9))
    expect(sink.entries()).toEqual([{ msg: 'é' }])
  })

  it('clear() forgets everything', () => {
    const sink = createLogSink()
    sink.stream.write('{"a":1}\n')
    sink.clear()
    expect(sink.text()).toBe('')
    expect(sink.entries()).toEqual([])
  })

  it('entries() rejects a line that is not a JSON object with TESTKIT_BAD_LOG_LINE', () => {
    const sink = createLogSink()
    sink.stream.write('plain text\n')
    expect(() => sink.entries()).toThrowError(expect.objectContaining({ code: 'TESTKIT_BAD_LOG_LINE' }) as Error)
    sink.clear()
    sink.stream.write('[1,2]\n')
    expect(() => sink.entries()).toThrowError(expect.objectContaining({ code: 'TESTKIT_BAD_LOG_LINE' }) as Error)
  })
})

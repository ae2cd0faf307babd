import { Writable } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import { TestkitError } from './errors.js'

/** Captured log output; `stream` is a pino destination (`pino(opts, sink.stream)`). */
export interface LogSink {
  stream: Writable
  /** Complete (newline-terminated) lines written so far. */
  lines(): string[]
  /** Each line parsed as a JSON object (pino's NDJSON). @throws TestkitError `TESTKIT_BAD_LOG_LINE`. */
  entries(): Array<Record<string, unknown>>
  /** Everything written so far, partial last line included. */
  text(): string
  /** Forgets everything captured so far. */
  clear(): void
}

/**
 * An in-memory log destination. Writes are captured synchronously, so a test can assert
 * right after the code under test logs.
 */
export function createLogSink (): LogSink {
  let text = ''
  const decoder = new StringDecoder('utf8')
  const stream = new Writable({
    decodeStrings: false,
    write (chunk: string | Buffer, _encoding, callback) {
      text += typeof chunk === 'string' ? chunk : decoder.write(chunk)
      callback()
    }
  })
  const lines = (): string[] => {
    const all = text.split('\n')
    all.pop() // the part after the last newline is not a complete line yet
    return all.filter((line) => line !== '')
  }
  return {
    stream,
    lines,
    entries: () => lines().map((line) => {
      let value: unknown
      try { value = JSON.parse(line) } catch (err) { throw TestkitError.badLogLine(line, err) }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw TestkitError.badLogLine(line)
      return value as Record<string, unknown>
    }),
    text: () => text,
    clear: () => { text = '' }
  }
}

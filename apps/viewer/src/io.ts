import type { Readable, Writable } from 'node:stream'

/** The CLI's streams and environment, injected so tests drive it in-process. */
export interface ViewerIO {
  stdout: Writable
  stderr: Writable
  stdin: Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown }
  env: Record<string, string | undefined>
  /** Ends the run like SIGINT does (tests); the bin wires SIGINT/SIGTERM to it. */
  signal?: AbortSignal
}

const MAX_STDIN = 64 * 1024

/**
 * The password: a TTY prompt without echo, or else the first line of stdin
 * (`printf '%s\n' "$PW" | arus-viewer ...`). Never from argv, where `ps` and shell history see it.
 */
export async function readPassword (io: ViewerIO, prompt: string): Promise<string> {
  if (io.stdin.isTTY === true && io.stdin.setRawMode !== undefined) return fromTty(io, prompt)
  let buf = ''
  for await (const chunk of io.stdin) {
    buf += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8')
    if (buf.includes('\n') || buf.length > MAX_STDIN) break
  }
  return buf.split(/\r?\n/)[0] ?? ''
}

function fromTty (io: ViewerIO, prompt: string): Promise<string> {
  const stdin = io.stdin
  return new Promise((resolve, reject) => {
    io.stderr.write(prompt)
    stdin.setRawMode?.(true)
    stdin.resume()
    let value = ''
    const done = (err?: Error): void => {
      stdin.setRawMode?.(false)
      stdin.pause()
      stdin.off('data', onData)
      io.stderr.write('\n')
      if (err === undefined) resolve(value)
      else reject(err)
    }
    const onData = (chunk: Buffer | string): void => {
      for (const ch of chunk.toString()) {
        if (ch === '\r' || ch === '\n') return done()
        if (ch === '\u0003') return done(new Error('cancelled'))
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1)
        else value += ch
      }
    }
    stdin.on('data', onData)
  })
}

/** One log line: NDJSON with --json, else a short human line. */
export function logger (io: ViewerIO, json: boolean): (event: string, fields?: Record<string, unknown>, human?: string) => void {
  return (event, fields = {}, human) => {
    if (json) io.stdout.write(JSON.stringify({ t: new Date().toISOString(), event, ...fields }) + '\n')
    else io.stdout.write(`${human ?? `${event} ${Object.values(fields).map(String).join(' ')}`.trim()}\n`)
  }
}

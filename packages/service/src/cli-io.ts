/** Command-line I/O shared by every daemon CLI: injected streams, secret input, result printing. */
import type { Readable, Writable } from 'node:stream'

/** The CLI's streams, injected so tests can drive commands in-process. */
export interface CliIO {
  stdout: Writable
  stderr: Writable
  stdin: Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown }
  env: Record<string, string | undefined>
}

const MAX_STDIN = 64 * 1024

/**
 * Reads a password: from a TTY prompt without echo, or the first line of stdin when it
 * is not a TTY (e.g. `printf 'pw\n' | arus-panel create-user alice`). Never from argv.
 */
export async function readSecretLine (io: CliIO, prompt: string): Promise<string> {
  if (io.stdin.isTTY && io.stdin.setRawMode) return readFromTty(io, prompt)
  let buf = ''
  for await (const chunk of io.stdin) {
    buf += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8')
    if (buf.includes('\n') || buf.length > MAX_STDIN) break
  }
  return buf.split(/\r?\n/)[0] ?? ''
}

function readFromTty (io: CliIO, prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    io.stderr.write(prompt)
    io.stdin.setRawMode!(true)
    io.stdin.resume()
    let value = ''
    const done = (err?: Error) => {
      io.stdin.setRawMode!(false)
      io.stdin.pause()
      io.stdin.off('data', onData)
      io.stderr.write('\n')
      if (err) reject(err)
      else resolve(value)
    }
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done()
        if (ch === '\u0003') return done(new Error('cancelled'))
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1)
        else value += ch
      }
    }
    io.stdin.on('data', onData)
  })
}

/** Prints a result: JSON with --json, else a compact human form. */
export function printResult (io: CliIO, json: boolean, value: unknown, human?: string): void {
  if (json) io.stdout.write(JSON.stringify(value, null, 2) + '\n')
  else io.stdout.write((human ?? JSON.stringify(value, null, 2)) + '\n')
}

/** The CLI's real streams and environment. */
export function processIO (): CliIO {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env }
}

/**
 * Runs one parsed command line and maps the outcome to an exit code: 0 ok, 2 usage
 * (commander's own errors; 0 for --help), 1 failure with `error: [CODE] message` on
 * stderr. Every daemon CLI's `runCli` is this around its program.
 */
export async function runCommandLine (parse: () => Promise<unknown>, io: CliIO): Promise<number> {
  try {
    await parse()
    return 0
  } catch (err) {
    const e = err as { code?: unknown; exitCode?: unknown; message?: unknown }
    if (typeof e.code === 'string' && e.code.startsWith('commander.')) return e.exitCode === 0 ? 0 : 2
    const code = typeof e.code === 'string' ? `[${e.code}] ` : ''
    io.stderr.write(`error: ${code}${String(e.message ?? err)}\n`)
    return 1
  }
}

import { Readable, Writable } from 'node:stream'

/** The streams and environment a daemon CLI's `runCli(argv, io)` takes (`@arus/service`'s `CliIO` fits). */
export interface CliStreams {
  stdout: Writable
  stderr: Writable
  stdin: Readable
  env: Record<string, string | undefined>
}

/** The exit code and output of one in-process command. */
export interface InProcessResult {
  code: number
  stdout: string
  stderr: string
}

/** Options for {@link runCliInProcess}. */
export interface InProcessInit {
  /** The command's whole environment (not merged over `process.env`). Default `{}`. */
  env?: Record<string, string | undefined>
  /** Its stdin (e.g. a password line). Default: empty. */
  input?: string
}

const capture = (): { stream: Writable; text: () => string } => {
  let text = ''
  return { stream: new Writable({ write (chunk, _enc, cb) { text += String(chunk); cb() } }), text: () => text }
}

/**
 * Runs one command of a daemon CLI in this process — `main(['node', name, ...args], io)`, the
 * program its bin runs — with stdout and stderr captured. No Node start-up per command, so
 * much faster than {@link runBin}; use the bin where the process itself is under test.
 */
export async function runCliInProcess (main: (argv: string[], io: CliStreams) => Promise<number>, name: string, args: readonly string[], init: InProcessInit = {}): Promise<InProcessResult> {
  const stdout = capture()
  const stderr = capture()
  const input = init.input ?? ''
  const code = await main(['node', name, ...args], { stdout: stdout.stream, stderr: stderr.stream, stdin: Readable.from(input === '' ? [] : [input]), env: init.env ?? {} })
  return { code, stdout: stdout.text(), stderr: stderr.text() }
}

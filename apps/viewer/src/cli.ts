import { Command, CommanderError } from 'commander'
import type { ViewerIO } from './io.js'
import { parseBootstrapList, ViewerOptions } from './options.js'
import { runViewer } from './run.js'

const DEFAULT_STORE_DIR = './arus-viewer-store'

/** The commander program; `onRun` receives the validated options (tests call it with argv). */
export function buildProgram (io: ViewerIO, onRun: (opts: ViewerOptions) => Promise<number>): Command {
  const collect = (v: string, prev: string[] | undefined) => [...(prev ?? []), v]
  return new Command('arus-viewer')
    .description('Headless Arus viewer: logs in to a panel over the DHT, lists the lineup and plays a stream as local HLS.\nThe password comes from a prompt, or the first line of stdin when it is not a terminal.')
    .option('--panel-key <hex>', 'panel public key (env ARUS_PANEL_KEY)')
    .option('--user <name>', 'account name (env ARUS_USER)')
    .option('--bootstrap <host:port>', 'DHT bootstrap node(s), repeatable or comma-separated (env BOOTSTRAP); default: the public DHT', collect)
    .option('--play <streamId>', 'stream to play (default: the first available live channel)')
    .option('--store-dir <dir>', 'replica cache directory', DEFAULT_STORE_DIR)
    .option('--upload-policy <policy>', "'reseed' or 'client-only'", 'reseed')
    .option('--allow-origin <origin>', 'let a browser page of this origin (e.g. http://127.0.0.1:8080) read the local HLS URL; default: no page can')
    .option('--json', 'NDJSON event lines on stdout', false)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .action(async (o: Record<string, unknown>) => {
      let bootstrap
      try {
        bootstrap = parseBootstrapList((o.bootstrap as string[] | undefined) ?? [io.env.BOOTSTRAP ?? ''])
      } catch (err) {
        throw new CommanderError(2, 'viewer.usage', `error: ${(err as Error).message}`)
      }
      const parsed = ViewerOptions.safeParse({
        panelKey: o.panelKey ?? io.env.ARUS_PANEL_KEY,
        user: o.user ?? io.env.ARUS_USER,
        bootstrap,
        play: o.play,
        storeDir: o.storeDir,
        uploadPolicy: o.uploadPolicy,
        allowOrigin: o.allowOrigin,
        json: o.json === true
      })
      if (!parsed.success) {
        const issue = parsed.error.issues[0]
        const field = String(issue?.path[0] ?? '')
        const name = field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
        const missing = field === 'panelKey' ? o.panelKey ?? io.env.ARUS_PANEL_KEY : field === 'user' ? o.user ?? io.env.ARUS_USER : ''
        throw new CommanderError(2, 'viewer.usage', `error: --${name}: ${missing === undefined ? 'is required' : issue?.message ?? 'invalid'}`)
      }
      await onRun(parsed.data)
    })
}

/** Runs `arus-viewer` with `argv` (process.argv shape); resolves the exit code. */
export async function runCli (argv: string[], io?: ViewerIO): Promise<number> {
  const controller = new AbortController()
  const stop = (): void => controller.abort()
  const own = io === undefined
  const effective: ViewerIO = io ?? { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, signal: controller.signal }
  if (own) { process.once('SIGINT', stop); process.once('SIGTERM', stop) }
  let code = 0
  try {
    await buildProgram(effective, async (opts) => { code = await runViewer(opts, effective); return code }).parseAsync(argv)
    return code
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0
      if (err.code === 'viewer.usage') effective.stderr.write(`${err.message}\n`)
      return err.exitCode === 0 ? 0 : 2
    }
    throw err
  } finally {
    if (own) { process.off('SIGINT', stop); process.off('SIGTERM', stop) }
  }
}

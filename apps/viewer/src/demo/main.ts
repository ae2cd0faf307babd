import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startDemoStack } from './stack.js'

/**
 * The README's demo (`npm run demo` → scripts/demo.sh → this file): a whole Arus service on
 * 127.0.0.1 — DHT testnet, panel, broadcaster with two test channels, and a headless viewer
 * playing the first one — until Ctrl-C. Nothing listens or dials beyond loopback.
 * DEMO_EXIT_AFTER_READY=1 stops everything as soon as it is up (CI); DEMO_KEEP=1 keeps the
 * temporary directory (data and logs) after the stop.
 */
const say = (s: string): void => { process.stderr.write(`[demo] ${s}\n`) }

async function main (): Promise<number> {
  const work = await mkdtemp(join(tmpdir(), 'arus-demo-'))
  const stopping = new AbortController()
  const stopped = new Promise<null>((resolve) => stopping.signal.addEventListener('abort', () => resolve(null), { once: true }))
  const onSignal = (): void => { if (!stopping.signal.aborted) { say('stopping…'); stopping.abort() } }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  try {
    let stack
    try {
      stack = await startDemoStack(work, say, stopping.signal)
    } catch (err) {
      // Ctrl-C during start-up: the start-up has stopped what it started.
      if (stopping.signal.aborted) return 130
      throw err
    }
    const { viewer, admin, broadcaster } = stack.credentials
    process.stdout.write([
      '',
      'Arus demo is up — everything runs on 127.0.0.1.',
      '',
      `  Watch:        ${stack.url}`,
      '                open it in VLC, `ffplay <url>` or mpv (no web page may read it: arus-viewer --allow-origin opts in)',
      `  Viewer login: user "${viewer.name}", password "${viewer.password}"   (panel key ${stack.panelKey})`,
      `  Panel admin:  ${stack.adminUrl}   user "${admin.name}", password "${admin.password}"`,
      `  Broadcaster:  ${stack.controlUrl}   user "${broadcaster.name}", password "${broadcaster.password}"`,
      `  DHT:          BOOTSTRAP=${stack.bootstrap}`,
      `  Logs:         ${join(work, 'logs')}`,
      '',
      'Press Ctrl-C to stop everything.',
      `DEMO_URL=${stack.url}`,
      ''
    ].join('\n'))
    let code = 0
    if (process.env.DEMO_EXIT_AFTER_READY === '1') {
      say('DEMO_EXIT_AFTER_READY=1: stopping now that everything is up')
    } else {
      // A process that dies on its own ends the demo too (its log says why).
      const died = Promise.race(stack.processes.map((p) => p.proc.exited.then(() => p, () => p)))
      const first = await Promise.race([stopped, died])
      if (first !== null && !stopping.signal.aborted) { say(`${first.name} exited unexpectedly; see ${first.log}`); code = 1 }
    }
    await stack.stop()
    return code
  } catch (err) {
    say(`failed: ${(err as Error).message}`)
    return 1
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    if (process.env.DEMO_KEEP === '1') say(`kept ${work}`)
    else await rm(work, { recursive: true, force: true }).catch(() => {})
    say('stopped')
  }
}

main().then((code) => { process.exitCode = code }, (err: Error) => { say(err.message); process.exitCode = 1 })

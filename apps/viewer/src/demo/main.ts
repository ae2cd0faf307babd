import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { DemoProcess } from './procs.js'
import { startDemoStack, stopAll } from './stack.js'

/**
 * The README's demo (`npm run demo` → scripts/demo.sh → this file): a whole Arus service on
 * 127.0.0.1 — DHT testnet, panel, broadcaster with two test channels, and a headless viewer
 * playing the first one — until Ctrl-C. Nothing listens or dials beyond loopback.
 * DEMO_EXIT_AFTER_READY=1 stops everything as soon as it is up (CI); DEMO_KEEP=1 keeps the
 * temporary directory (data and logs) after the stop.
 */
const root = fileURLToPath(new URL('../../../../', import.meta.url))
const say = (s: string): void => { process.stderr.write(`[demo] ${s}\n`) }

async function main (): Promise<number> {
  const work = await mkdtemp(join(tmpdir(), 'arus-demo-'))
  let stopping = false
  let wake = (): void => {}
  const stopped = new Promise<void>((resolve) => { wake = resolve })
  const onSignal = (): void => { if (!stopping) { stopping = true; say('stopping…'); wake() } }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  let code = 0
  const processes: DemoProcess[] = []
  try {
    const starting = startDemoStack(root, work, say, processes)
    const stack = await Promise.race([starting, stopped.then(() => null)])
    if (stack === null) {
      // Ctrl-C during start-up: stop what runs; the start-up then fails on its own.
      await stopAll(processes)
      await starting.catch(() => null)
      return 130
    }
    const [vu, vp] = stack.credentials.viewer
    const [au, ap] = stack.credentials.admin
    const [bu, bp] = stack.credentials.broadcaster
    process.stdout.write([
      '',
      'Arus demo is up — everything runs on 127.0.0.1.',
      '',
      `  Watch:        ${stack.url}`,
      '                open it in VLC, `ffplay <url>`, mpv, or a browser page with hls.js',
      `  Viewer login: user "${vu}", password "${vp}"   (panel key ${stack.panelKey})`,
      `  Panel admin:  ${stack.adminUrl}   user "${au}", password "${ap}"`,
      `  Broadcaster:  ${stack.controlUrl}   user "${bu}", password "${bp}"`,
      `  DHT:          BOOTSTRAP=${stack.bootstrap}`,
      `  Logs:         ${join(work, 'logs')}`,
      '',
      'Press Ctrl-C to stop everything.',
      `DEMO_URL=${stack.url}`,
      ''
    ].join('\n'))
    const exitAfterReady = process.env.DEMO_EXIT_AFTER_READY === '1'
    if (exitAfterReady) say('DEMO_EXIT_AFTER_READY=1: stopping now that everything is up')
    // A process that dies on its own ends the demo too (its log says why).
    const died = Promise.race(stack.processes.map((p) => p.exited.then(() => p)))
    const first = exitAfterReady ? null : await Promise.race([stopped.then(() => null), died])
    if (first !== null && !stopping) { say(`${first.name} exited unexpectedly; see ${first.log}`); code = 1 }
    await stopAll(stack.processes)
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

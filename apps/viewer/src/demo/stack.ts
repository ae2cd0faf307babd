import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createStack, spawnProcess, type HttpLogin, type SpawnedProcess } from '@arus/testkit'

const VIEWER_BIN = fileURLToPath(new URL('../../bin/arus-viewer.js', import.meta.url))

/** One process of the demo, for the "exited unexpectedly" report. */
export interface DemoProcess {
  readonly name: string
  readonly proc: SpawnedProcess
  /** Its log file. */
  readonly log: string
}

export interface DemoStack {
  /** Testnet, panel, broadcaster and viewer processes. */
  processes: DemoProcess[]
  bootstrap: string
  panelKey: string
  url: string
  adminUrl: string
  controlUrl: string
  credentials: { viewer: HttpLogin; admin: HttpLogin; broadcaster: HttpLogin }
  /** Stops everything newest first: the viewer (SIGINT, its clean stop), broadcaster, panel, testnet. */
  stop(): Promise<void>
}

const secret = (): string => randomBytes(9).toString('base64url')
const CHANNELS = [
  { id: 'demo-1', title: 'Test pattern one', order: 1 },
  { id: 'demo-2', title: 'Test pattern two', order: 2 }
]

/**
 * Starts, all on 127.0.0.1 (testkit's createStack): a DHT testnet process, a panel (an admin,
 * a viewer account, an enrolled publisher `demo` scoped to `demo-*`), a broadcaster with two
 * `test` channels under that publisher, the grants, and a headless viewer playing the first
 * channel. Data and logs go under `work`. Aborting `signal` (Ctrl-C) stops what runs and
 * ends the start-up with the signal's reason.
 */
export async function startDemoStack (work: string, say: (s: string) => void, signal: AbortSignal): Promise<DemoStack> {
  const logs = join(work, 'logs')
  const credentials = { viewer: { name: 'viewer', password: secret() }, admin: { name: 'admin', password: secret() }, broadcaster: { name: 'op', password: secret() } }
  say('starting a local DHT testnet, the panel (an admin, a viewer account, a publisher) and a broadcaster')
  // The daemons' own costs and defaults, not the test ones: the demo is what an operator gets.
  const stack = await createStack(undefined, {
    testnet: 'process',
    logs,
    signal,
    panel: { dataDir: join(work, 'panel'), admin: credentials.admin, users: [credentials.viewer], testEnv: false },
    broadcasters: [{
      name: 'demo', scopes: 'demo-*', dataDir: join(work, 'broadcaster'), operator: credentials.broadcaster, testEnv: false,
      env: { INGEST_BIND: '127.0.0.1', HLS_TIME: '2' }
    }]
  })
  let viewer: SpawnedProcess | null = null
  const stop = async (): Promise<void> => {
    await viewer?.stop('SIGINT', 10_000)
    await stack.close()
  }
  const onAbort = (): void => { stop().catch(() => {}) }
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    const bc = stack.broadcasters[0]!
    say('starting two test channels and granting them to the viewer account')
    for (const ch of CHANNELS) {
      // channel() resolves once the panel has acknowledged the channel's registration.
      await bc.channel(ch.id, { title: ch.title, category: ['Demo'], transcode: { width: 640, height: 360, preset: 'veryfast' }, hlsTime: 2, hlsListSize: 6 }, { timeoutMs: 60_000 })
      await stack.panel.api('PATCH', `/api/streams/${ch.id}`, { order: ch.order })
      await stack.panel.api('POST', `/api/users/${credentials.viewer.name}/grants`, { streamId: ch.id })
    }

    say('starting a headless viewer: log in over the DHT and play the first channel')
    signal.throwIfAborted()
    const viewerLog = join(logs, 'viewer.log')
    viewer = spawnProcess(undefined, process.execPath, [VIEWER_BIN, '--panel-key', stack.panel.panelKey, '--user', credentials.viewer.name,
      '--bootstrap', stack.bootstrap, '--play', CHANNELS[0]!.id, '--json', '--store-dir', join(work, 'viewer')], { input: `${credentials.viewer.password}\n`, logFile: viewerLog })
    const playing = JSON.parse((await viewer.waitForLine(/"event":"playing"/, 120_000)).input ?? '{}') as { url: string }
    signal.throwIfAborted()
    return {
      processes: [
        { name: 'testnet', proc: stack.testnetProc!, log: join(logs, 'testnet.log') },
        { name: 'panel', proc: stack.panel.proc!, log: join(logs, 'panel.log') },
        { name: 'broadcaster', proc: bc.proc!, log: join(logs, `broadcaster-${bc.name}.log`) },
        { name: 'viewer', proc: viewer, log: viewerLog }
      ],
      bootstrap: stack.bootstrap,
      panelKey: stack.panel.panelKey,
      url: playing.url,
      adminUrl: stack.panel.adminUrl!,
      controlUrl: bc.controlUrl!,
      credentials,
      stop
    }
  } catch (err) {
    await stop()
    throw signal.aborted ? signal.reason : err
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}

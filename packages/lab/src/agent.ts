// The viewer agent: runs inside a lab device namespace and plays as one or more app
// instances of the real SDK (one `createPlayer` each), each with the player model. It is
// driven by JSON lines on stdin and answers with JSON lines on stdout (agent-protocol.ts).
import { mkdirSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { createPlayer, loginWithRetry } from '@arus/sdk'
import type { Player } from '@arus/sdk'
import { AgentCommand } from './agent-protocol.js'
import type { AgentViewer, ViewerReport } from './agent-protocol.js'
import { runPlayerModel } from './player-model.js'
import type { PlayerModelStats } from './player-model.js'

interface Running {
  spec: AgentViewer
  player: Player | null
  model: { stats: () => PlayerModelStats; done: Promise<void> } | null
  abort: AbortController
  startedAt: number
  error: string | null
  publicKey: string | null
  /** ms after startedAt: connect() done, login done, resolve done. */
  phases: { connect: number | null; login: number | null; resolve: number | null }
}

const viewers = new Map<string, Running>()
const out = (msg: object): void => { process.stdout.write(`${JSON.stringify(msg)}\n`) }

async function start (spec: AgentViewer, panelKey: string, bootstrap: { host: string; port: number }[]): Promise<void> {
  const r: Running = { spec, player: null, model: null, abort: new AbortController(), startedAt: Date.now(), error: null, publicKey: null, phases: { connect: null, login: null, resolve: null } }
  const mark = (phase: keyof Running['phases']): void => { r.phases[phase] = Date.now() - r.startedAt }
  viewers.set(spec.name, r)
  try {
    mkdirSync(spec.storeDir, { recursive: true })
    const player = createPlayer({ panelPubKey: panelKey, storeDir: spec.storeDir, uploadPolicy: spec.uploadPolicy, swarm: { bootstrap, warmDial: spec.warmDial } })
    r.player = player
    player.on('error', (err) => { out({ ev: 'sdk-error', name: spec.name, message: (err as Error).message }) })
    await player.connect()
    mark('connect')
    await loginWithRetry(player, spec.user, spec.password, { totalMs: 60_000, signal: r.abort.signal })
    mark('login')
    r.publicKey = player.diagnostics().publicKey
    const { url } = await player.resolve(spec.channel)
    mark('resolve')
    r.model = runPlayerModel({ url, startedAt: r.startedAt, signal: r.abort.signal })
    out({ ev: 'playing', name: spec.name })
  } catch (err) {
    r.error = (err as Error).message
    out({ ev: 'failed', name: spec.name, message: r.error })
  }
}

function report (r: Running): ViewerReport {
  const diag = r.player?.diagnostics() ?? null
  return {
    name: r.spec.name,
    publicKey: r.publicKey,
    error: r.error,
    phases: { ...r.phases },
    lastLogin: diag?.lastLogin ?? null,
    peers: diag?.feed?.peers ?? 0,
    bytesByPeer: diag?.feed?.bytesByPeer ?? {},
    model: r.model?.stats() ?? null,
    rssBytes: process.memoryUsage().rss
  }
}

async function stop (name: string): Promise<void> {
  const r = viewers.get(name)
  if (r === undefined) return
  viewers.delete(name)
  r.abort.abort()
  await r.model?.done.catch(() => {})
  await r.player?.stop().catch(() => {})
}

async function handle (line: string): Promise<void> {
  let cmd: AgentCommand
  try {
    cmd = AgentCommand.parse(JSON.parse(line))
  } catch (err) {
    out({ ev: 'bad-command', message: (err as Error).message.slice(0, 500) })
    return
  }
  if (cmd.op === 'start') {
    for (const v of cmd.viewers) void start(v, cmd.panelKey, cmd.bootstrap)
  } else if (cmd.op === 'report') {
    out({ ev: 'report', id: cmd.id, viewers: [...viewers.values()].map(report) })
  } else if (cmd.op === 'stop') {
    await Promise.all((cmd.names ?? [...viewers.keys()]).map(stop))
    out({ ev: 'stopped', id: cmd.id })
  } else {
    await Promise.all([...viewers.keys()].map(stop))
    out({ ev: 'bye' })
    process.exit(0)
  }
}

let queue = Promise.resolve()
createInterface({ input: process.stdin }).on('line', (line) => { queue = queue.then(() => handle(line)) })
process.stdin.on('end', () => { queue = queue.then(() => handle('{"op":"exit"}')) })
const quit = (): void => { queue = queue.then(() => handle('{"op":"exit"}')) }
process.once('SIGTERM', quit)
process.once('SIGINT', quit)
out({ ev: 'agent-ready', pid: process.pid })

import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { AgentViewer, ViewerReport } from './agent-protocol.js'
import { LabError } from './errors.js'
import type { Lab } from './lab.js'
import type { LabProcess } from './process.js'

const AGENT = fileURLToPath(new URL('../dist/agent.js', import.meta.url))

/** A viewer agent process inside a device namespace. */
export interface Agent {
  readonly ns: string
  readonly proc: LabProcess
  /** Starts app instances (connect, login, resolve, play). Resolves at once; watch `report()`. */
  start(panelKey: string, viewers: Array<Omit<AgentViewer, 'storeDir' | 'uploadPolicy' | 'warmDial'> & Partial<Pick<AgentViewer, 'storeDir' | 'uploadPolicy' | 'warmDial'>>>): void
  /** Each instance's state now (bounded). */
  report(timeoutMs?: number): Promise<ViewerReport[]>
  /** Stops some instances (all by default), bounded. */
  stop(names?: string[], timeoutMs?: number): Promise<void>
  /** Stops every instance and ends the process. */
  exit(): Promise<void>
}

/**
 * Starts the agent (`dist/agent.js`, Node flags of a viewer process: a small young
 * generation) in `ns`. Runs the SDK from the built dist.
 */
export async function startAgent (lab: Lab, ns: string, opts: { logName?: string } = {}): Promise<Agent> {
  const proc = lab.node(ns, ['--max-semi-space-size=1', AGENT], {
    stdin: true,
    env: { MALLOC_ARENA_MAX: '2' },
    logFile: join(lab.dir, `${opts.logName ?? ns}.log`)
  })
  await proc.waitForLine(/"ev":"agent-ready"/, 15_000, 'agent ready')
  let ids = 0
  const send = (cmd: object): void => { proc.child.stdin?.write(`${JSON.stringify(cmd)}\n`) }
  const reply = async (id: number, ev: string, timeoutMs: number): Promise<any> => {
    const m = await proc.waitForLine(new RegExp(`^\\{"ev":"${ev}","id":${id}[,}]`), timeoutMs, `agent ${ev} ${id}`)
    return JSON.parse(m.input ?? '{}')
  }
  return {
    ns,
    proc,
    start (panelKey, viewers) {
      send({
        op: 'start',
        panelKey,
        bootstrap: [{ host: lab.plan.dht.hosts[0], port: lab.plan.dht.port }],
        viewers: viewers.map((v) => ({ uploadPolicy: 'reseed', storeDir: join(lab.dir, 'stores', v.name), ...v }))
      })
    },
    async report (timeoutMs = 10_000) {
      const id = ++ids
      send({ op: 'report', id })
      return (await reply(id, 'report', timeoutMs)).viewers as ViewerReport[]
    },
    async stop (names, timeoutMs = 20_000) {
      const id = ++ids
      send({ op: 'stop', id, ...(names === undefined ? {} : { names }) })
      await reply(id, 'stopped', timeoutMs)
    },
    async exit () {
      send({ op: 'exit' })
      const st = await Promise.race([proc.exited, new Promise<null>((resolve) => setTimeout(() => resolve(null), 20_000))])
      if (st === null) {
        await proc.stop(2_000)
        throw LabError.agentFailed(ns, 'did not exit within 20 s')
      }
    }
  }
}

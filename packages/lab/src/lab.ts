import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { delayBinary, readDelayStats } from './delay.js'
import type { DelayStats } from './delay.js'
import { LabError } from './errors.js'
import { hostBridge } from './expose.js'
import { LAB_ENV, spawnInNs } from './process.js'
import type { LabProcess, LabProcessInit } from './process.js'
import { listNamespaces, sh } from './sh.js'
import { delayRules, labBootstrap, labPrefix, planLab } from './spec.js'
import type { LabPlan, LabSpec } from './spec.js'
import { buildTopology, DELAY_TUN, removeNamespaces } from './topology.js'

const TESTNET_BIN = fileURLToPath(new URL('../../swarm/bin/arus-testnet.js', import.meta.url))
const FORWARDER = fileURLToPath(new URL('../dist/forwarder.js', import.meta.url))

/** A running lab. */
export interface Lab {
  readonly plan: LabPlan
  /** `BOOTSTRAP` of the lab's DHT (lab addresses only: usable inside the lab). */
  readonly bootstrap: string
  /** The lab's work directory (logs, sockets, stats); removed by `down()`. */
  readonly dir: string
  /** Starts a process inside a namespace, stopped by `down()`. */
  spawn(ns: string, cmd: string, args: readonly string[], init?: LabProcessInit): LabProcess
  /** `spawn` of this Node binary. */
  node(ns: string, args: readonly string[], init?: LabProcessInit): LabProcess
  /** A host URL (`http://127.0.0.1:<port>`) reaching `127.0.0.1:<port>` inside `ns` (see expose.ts). */
  expose(ns: string, port: number): Promise<string>
  /** The delay stage's figures so far. */
  delayStats(): DelayStats | null
  /** Stops every process, removes every namespace and the work dir. Idempotent. */
  down(): Promise<void>
}

export interface StartLabInit {
  /** Work directory (default: a fresh one under the system temp dir). */
  dir?: string
  /** Bound on the DHT's start. Default 30 s. */
  readyTimeoutMs?: number
}

/** Checks what the lab needs before touching anything. @throws LabError `LAB_NOT_ROOT`, `LAB_MISSING_TOOL`. */
export async function checkLabHost (): Promise<void> {
  if (process.getuid?.() !== 0) throw LabError.notRoot()
  for (const [tool, pkg] of [['ip', 'iproute2'], ['nft', 'nftables'], ['tc', 'iproute2'], ['gcc', 'gcc']] as const) {
    await sh('which', [tool]).catch(() => { throw LabError.missingTool(tool, pkg) })
  }
}

/**
 * Brings a lab up: namespaces, links, NAT, caps (topology.ts), the delay stage in the core,
 * and the DHT (`arus-testnet --hosts`, one node per address). A lab of the same id left by a
 * crash is removed first. A failure on the way tears down what was made.
 */
export async function startLab (spec: LabSpec, init: StartLabInit = {}): Promise<Lab> {
  await checkLabHost()
  const plan = planLab(spec)
  await labDown(plan.id)
  const dir = init.dir ?? join(tmpdir(), `arus-lab-${plan.id}`)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const procs: LabProcess[] = []
  const bridges: Array<() => Promise<void>> = []
  let down: Promise<void> | null = null
  const statsFile = join(dir, 'delay-stats.json')

  const spawn = (ns: string, cmd: string, args: readonly string[], pinit: LabProcessInit = {}): LabProcess => {
    if (!plan.namespaces.includes(ns)) throw LabError.commandFailed(`spawn ${cmd}`, `${ns} is not a namespace of lab ${plan.id}`)
    const p = spawnInNs(plan.id, ns, cmd, args, pinit)
    procs.push(p)
    return p
  }
  let sockets = 0
  const lab: Lab = {
    plan,
    bootstrap: labBootstrap(plan),
    dir,
    spawn,
    node: (ns, args, pinit) => spawn(ns, process.execPath, args, pinit),
    async expose (ns, port) {
      const socketPath = join(dir, `bridge-${++sockets}.sock`)
      const fwd = spawn(ns, process.execPath, [FORWARDER, socketPath, String(port)])
      await fwd.waitForLine(/^listening$/, 10_000, 'forwarder listening')
      const bridge = await hostBridge(socketPath)
      bridges.push(bridge.close)
      return bridge.url
    },
    delayStats: () => readDelayStats(statsFile),
    down () {
      down ??= (async () => {
        for (const close of bridges.splice(0)) await close().catch(() => {})
        await Promise.all(procs.splice(0).map((p) => p.stop(3_000)))
        await labDown(plan.id)
        rmSync(dir, { recursive: true, force: true })
      })()
      return down
    }
  }

  try {
    await buildTopology(plan)
    const bin = await delayBinary()
    const delay = spawn(plan.inet, bin, ['--tun', DELAY_TUN, '--rt', '10', '--stats', statsFile, ...delayRules(plan)], { logFile: join(dir, 'delay.log') })
    await delay.waitForLine(/^ready$/, 10_000, 'delay stage ready')
    const dht = spawn(plan.dht.ns, process.execPath, [TESTNET_BIN, '--hosts', plan.dht.hosts.join(','), '--port', String(plan.dht.port)], { logFile: join(dir, 'dht.log') })
    await dht.waitForLine(/^BOOTSTRAP=/, init.readyTimeoutMs ?? 30_000, 'DHT up')
    return lab
  } catch (err) {
    await lab.down().catch(() => {})
    throw err
  }
}

/** Pids of processes anywhere on the machine that carry this lab's id (ARUS_LAB). */
export function labPids (id: string): number[] {
  const tag = `${LAB_ENV}=${id}\0`
  const out: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const env = readFileSync(`/proc/${entry}/environ`, 'latin1')
      if (`${env}\0`.includes(tag)) out.push(Number(entry))
    } catch {
      // gone, or not ours to read
    }
  }
  return out
}

/**
 * Removes a lab by id, whatever state a crash left it in: its processes (by namespace and
 * by the ARUS_LAB tag), then its namespaces (links, tun, rules and qdiscs go with them).
 */
export async function labDown (id: string): Promise<{ namespaces: string[]; killed: number }> {
  const namespaces = await removeNamespaces(labPrefix(id))
  const stray = labPids(id).filter((pid) => pid !== process.pid)
  for (const pid of stray) { try { process.kill(pid, 'SIGKILL') } catch { /* gone */ } }
  return { namespaces, killed: stray.length }
}

/** What is left of a lab (for tests asserting a clean teardown). */
export async function labLeftovers (id: string): Promise<{ namespaces: string[]; pids: number[] }> {
  return {
    namespaces: (await listNamespaces()).filter((n) => n.startsWith(labPrefix(id))),
    pids: labPids(id).filter((pid) => pid !== process.pid)
  }
}

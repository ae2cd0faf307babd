import { z } from 'zod'

/**
 * What a lab is made of, and where every address lives. Pure: no command runs here.
 *
 * Address plan (every range private or shared, so nothing in the lab is routable outside it):
 * - 10.77.1.0/24   the DHT namespace, one address per node (.2, .3, …); the inet side is .1
 * - 10.77.2.0/24   the origin box (.2); the inet side is .1
 * - 10.77.3.0/24   a repeater box (.2), when the spec has one; the inet side is .1
 * - 100.64.K.0/24  home K's WAN link (shared address space, RFC 6598, as carrier-grade NAT
 *                  uses): router outside .2, the inet side .1
 * - 192.168.K.0/24 home K's LAN behind its NAT router (.1), devices .11, .12, …
 */

/** One home: a NAT router, its devices, its access link. */
export const HomeSpec = z.strictObject({
  devices: z.number().int().min(1).max(8).default(2),
  /**
   * `preserving`: masquerade keeps a flow's source port when it can, so every DHT node sees
   * the same outside port (hyperdht: firewall CONSISTENT). `random`: `masquerade random`
   * picks a new port per destination, like a symmetric NAT (hyperdht: RANDOM).
   */
  nat: z.enum(['preserving', 'random']).default('preserving'),
  /** Uplink cap (home → internet), Mbit/s. */
  upMbit: z.number().positive().max(10_000).default(5),
  /** Downlink cap (internet → home), Mbit/s. */
  downMbit: z.number().positive().max(10_000).default(50),
  /** Round-trip time between the home and the internet core (the origin and the DHT sit at the core). */
  rttMs: z.number().min(0).max(2_000).default(60),
  /** Extra one-way delay drawn per packet in [0, jitterMs]; a flow is never reordered by it. */
  jitterMs: z.number().min(0).max(500).default(0),
  /** Packet loss each way, percent. */
  lossPct: z.number().min(0).max(50).default(0)
})
export type HomeSpec = z.input<typeof HomeSpec>

/** The whole lab. */
export const LabSpec = z.strictObject({
  /** Names every namespace (`arus<id>-…`) and process of this lab: `down` finds them by it. */
  id: z.string().regex(/^[a-z0-9]{1,6}$/, 'id: 1-6 lowercase letters or digits'),
  /** DHT nodes, each on its own address (a NATed node learns its outside address from several). */
  dhtNodes: z.number().int().min(3).max(16).default(5),
  /** The origin's access link: well connected by default. */
  origin: z.strictObject({
    upMbit: z.number().positive().max(10_000).default(1_000),
    rttMs: z.number().min(0).max(2_000).default(0)
  }).default({ upMbit: 1_000, rttMs: 0 }),
  /** A repeater box at the core, on its own access link (none by default). */
  repeater: z.strictObject({
    upMbit: z.number().positive().max(10_000).default(1_000),
    rttMs: z.number().min(0).max(2_000).default(0)
  }).optional(),
  homes: z.array(HomeSpec).min(1).max(200)
})
export type LabSpec = z.input<typeof LabSpec>

export interface DevicePlan { ns: string; addr: string; home: number; index: number }

export interface HomePlan {
  index: number
  /** The router namespace. */
  ns: string
  wan: string
  wanGateway: string
  lanGateway: string
  lanCidr: string
  wanCidr: string
  nat: 'preserving' | 'random'
  upMbit: number
  downMbit: number
  rttMs: number
  jitterMs: number
  lossPct: number
  devices: DevicePlan[]
}

export interface LabPlan {
  id: string
  /** Every namespace of the lab starts with this. */
  prefix: string
  inet: string
  dht: { ns: string; hosts: string[]; port: number; cidr: string }
  origin: { ns: string; addr: string; cidr: string; upMbit: number; rttMs: number }
  /** The repeater box, when the spec has one. */
  repeater: { ns: string; addr: string; cidr: string; upMbit: number; rttMs: number } | null
  homes: HomePlan[]
  /** Every namespace, in creation order. */
  namespaces: string[]
}

/** The lab's fixed DHT port: every node listens on it at its own address. */
export const DHT_PORT = 49737

/** Namespace prefix of a lab id. */
export const labPrefix = (id: string): string => `arus${id}-`

/** Validates a spec (zod; a bad one throws naming each problem) and lays out its addresses. */
export function planLab (input: LabSpec): LabPlan {
  const spec = LabSpec.parse(input)
  const prefix = labPrefix(spec.id)
  const dhtHosts = Array.from({ length: spec.dhtNodes }, (_, i) => `10.77.1.${i + 2}`)
  const homes: HomePlan[] = spec.homes.map((h, i) => {
    const k = i + 1
    const ns = `${prefix}h${k}`
    return {
      index: k,
      ns,
      wan: `100.64.${k}.2`,
      wanGateway: `100.64.${k}.1`,
      lanGateway: `192.168.${k}.1`,
      lanCidr: `192.168.${k}.0/24`,
      wanCidr: `100.64.${k}.0/24`,
      nat: h.nat,
      upMbit: h.upMbit,
      downMbit: h.downMbit,
      rttMs: h.rttMs,
      jitterMs: h.jitterMs,
      lossPct: h.lossPct,
      devices: Array.from({ length: h.devices }, (_, j) => ({ ns: `${ns}d${j + 1}`, addr: `192.168.${k}.${11 + j}`, home: k, index: j + 1 }))
    }
  })
  const plan: LabPlan = {
    id: spec.id,
    prefix,
    inet: `${prefix}inet`,
    dht: { ns: `${prefix}dht`, hosts: dhtHosts, port: DHT_PORT, cidr: '10.77.1.0/24' },
    origin: { ns: `${prefix}origin`, addr: '10.77.2.2', cidr: '10.77.2.0/24', upMbit: spec.origin.upMbit, rttMs: spec.origin.rttMs },
    repeater: spec.repeater === undefined ? null : { ns: `${prefix}rep`, addr: '10.77.3.2', cidr: '10.77.3.0/24', upMbit: spec.repeater.upMbit, rttMs: spec.repeater.rttMs },
    homes,
    namespaces: []
  }
  plan.namespaces = [plan.inet, plan.dht.ns, plan.origin.ns, ...(plan.repeater === null ? [] : [plan.repeater.ns]), ...homes.flatMap((h) => [h.ns, ...h.devices.map((d) => d.ns)])]
  return plan
}

/**
 * The delay stage's rules: each attachment's one-way delay (half its RTT to the core),
 * jitter and loss, matched on a packet's source and on its destination. Home to home thus
 * takes both homes' delays each way: RTT = rttA + rttB.
 */
export function delayRules (plan: LabPlan): string[] {
  const half = (ms: number): string => String(Math.round((ms / 2) * 1000) / 1000)
  return [
    `${plan.dht.cidr}=0`,
    `${plan.origin.cidr}=${half(plan.origin.rttMs)}`,
    ...(plan.repeater === null ? [] : [`${plan.repeater.cidr}=${half(plan.repeater.rttMs)}`]),
    ...plan.homes.map((h) => `${h.wanCidr}=${half(h.rttMs)}:${h.jitterMs}:${h.lossPct}`)
  ]
}

/** `BOOTSTRAP` of the lab's DHT. */
export const labBootstrap = (plan: LabPlan): string => `${plan.dht.hosts[0]}:${plan.dht.port}`

import { LabError } from './errors.js'
import type { LabPlan } from './spec.js'
import { inNs, ipn, listNamespaces, namespacePids, sh, sysctl } from './sh.js'

/** The tun device every forwarded packet of the core passes through (the delay stage). */
export const DELAY_TUN = 'dly0'
/** The routing table that sends a packet into the delay stage. */
const DELAY_TABLE = '100'

/**
 * Builds the namespaces, links, routes, NAT and rate limits of a plan. Shape:
 * the "inet" namespace is a router (no bridge, no default route, no link to the host); the
 * DHT, the origin and each home router hang off it on their own veth link. Every packet
 * it forwards goes through the tun device first (policy routing: in from a link → table
 * 100 → the tun; back out of the tun → the main table), where the delay stage holds it.
 */
export async function buildTopology (plan: LabPlan): Promise<void> {
  for (const ns of plan.namespaces) {
    await sh('ip', ['netns', 'add', ns])
    await ipn(ns, 'link', 'set', 'lo', 'up')
    // Packets re-enter from the tun with sources routed elsewhere: no reverse-path filter anywhere.
    await sysctl(ns, 'net.ipv4.conf.all.rp_filter', 0)
    await sysctl(ns, 'net.ipv4.conf.default.rp_filter', 0)
  }
  const inet = plan.inet
  await sysctl(inet, 'net.ipv4.ip_forward', 1)
  await ipn(inet, 'tuntap', 'add', 'dev', DELAY_TUN, 'mode', 'tun')
  await ipn(inet, 'link', 'set', DELAY_TUN, 'up')
  await sysctl(inet, `net.ipv4.conf.${DELAY_TUN}.rp_filter`, 0)
  await ipn(inet, 'route', 'add', 'default', 'dev', DELAY_TUN, 'table', DELAY_TABLE)

  /** A veth between the core and `ns`: `core` on the inet side, `eth` inside. */
  const attach = async (ns: string, core: string, eth: string, coreAddr: string, addrs: string[], prefixLen = 24): Promise<void> => {
    await sh('ip', ['link', 'add', core, 'netns', inet, 'type', 'veth', 'peer', 'name', eth, 'netns', ns])
    await ipn(inet, 'addr', 'add', `${coreAddr}/${prefixLen}`, 'dev', core)
    await ipn(inet, 'link', 'set', core, 'up')
    for (const a of addrs) await ipn(ns, 'addr', 'add', `${a}/${prefixLen}`, 'dev', eth)
    await ipn(ns, 'link', 'set', eth, 'up')
    await ipn(ns, 'route', 'add', 'default', 'via', coreAddr)
    await ipn(inet, 'rule', 'add', 'iif', core, 'lookup', DELAY_TABLE, 'priority', '100')
  }

  await attach(plan.dht.ns, 'dht', 'eth0', '10.77.1.1', plan.dht.hosts)
  await attach(plan.origin.ns, 'origin', 'eth0', '10.77.2.1', [plan.origin.addr])
  await capEgress(plan.origin.ns, 'eth0', plan.origin.upMbit)
  if (plan.repeater !== null) {
    await attach(plan.repeater.ns, 'rep', 'eth0', '10.77.3.1', [plan.repeater.addr])
    await capEgress(plan.repeater.ns, 'eth0', plan.repeater.upMbit)
  }

  for (const home of plan.homes) {
    const core = `h${home.index}`
    await attach(home.ns, core, 'wan', home.wanGateway, [home.wan])
    await sysctl(home.ns, 'net.ipv4.ip_forward', 1)
    await ipn(home.ns, 'link', 'add', 'lan', 'type', 'bridge')
    await ipn(home.ns, 'addr', 'add', `${home.lanGateway}/24`, 'dev', 'lan')
    await ipn(home.ns, 'link', 'set', 'lan', 'up')
    for (const d of home.devices) {
      const port = `d${d.index}`
      await sh('ip', ['link', 'add', port, 'netns', home.ns, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', d.ns])
      await ipn(home.ns, 'link', 'set', port, 'master', 'lan')
      await ipn(home.ns, 'link', 'set', port, 'up')
      await ipn(d.ns, 'addr', 'add', `${d.addr}/24`, 'dev', 'eth0')
      await ipn(d.ns, 'link', 'set', 'eth0', 'up')
      await ipn(d.ns, 'route', 'add', 'default', 'via', home.lanGateway)
    }
    await inNs(home.ns, 'nft', ['-f', '-'], { input: natRules(home.nat) })
    await capEgress(home.ns, 'wan', home.upMbit) // the uplink
    await capEgress(inet, core, home.downMbit) // the downlink
  }
}

/**
 * A home router's nftables: masquerade out of the WAN (with `random`, a new port per
 * destination), and drop whatever comes in from the WAN unasked, as home routers do.
 * The drop matters for hole punching: an unsolicited packet that reached the router
 * would leave a conntrack entry holding the very port mapping the punch needs (the
 * entry is only confirmed once the packet passes; a drop discards it).
 */
export function natRules (nat: 'preserving' | 'random'): string {
  return `table ip arus_nat {
  chain postrouting { type nat hook postrouting priority 100; oifname "wan" masquerade${nat === 'random' ? ' random' : ''}; }
}
table ip arus_filter {
  chain input { type filter hook input priority 0; iifname "wan" ct state new drop; }
  chain forward { type filter hook forward priority 0; iifname "wan" ct state new drop; }
}
`
}

/**
 * A token bucket on a link's egress: `rate`, a burst of ~4 ms at that rate (at least 4 KiB;
 * tbf needs more than one tick's worth), a queue of ~300 ms.
 */
export async function capEgress (ns: string, dev: string, mbit: number): Promise<void> {
  const bytesPerMs = (mbit * 1e6) / 8 / 1000
  const burst = Math.max(4096, Math.ceil(bytesPerMs * 4))
  await ipn(ns, 'link', 'set', dev, 'txqueuelen', '1000')
  await sh('tc', ['-n', ns, 'qdisc', 'replace', 'dev', dev, 'root', 'tbf', 'rate', `${Math.round(mbit * 1000)}kbit`, 'burst', String(burst), 'latency', '300ms'])
}

/**
 * Removes every namespace whose name starts with `prefix`: first every process inside
 * (SIGTERM, then SIGKILL after `graceMs`), then the namespace (its links, tun and rules go
 * with it). Safe after a crash and when nothing is left. Resolves the namespaces removed.
 */
export async function removeNamespaces (prefix: string, graceMs = 3_000): Promise<string[]> {
  const mine = (await listNamespaces()).filter((n) => n.startsWith(prefix))
  const pids = new Set<number>()
  for (const ns of mine) for (const pid of await namespacePids(ns)) pids.add(pid)
  const signal = (sig: NodeJS.Signals): void => {
    for (const pid of pids) { try { process.kill(pid, sig) } catch { pids.delete(pid) } }
  }
  signal('SIGTERM')
  const deadline = Date.now() + graceMs
  while (pids.size > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    for (const pid of pids) { try { process.kill(pid, 0) } catch { pids.delete(pid) } }
  }
  signal('SIGKILL')
  for (const ns of mine) {
    await sh('ip', ['netns', 'del', ns]).catch((err: unknown) => {
      throw LabError.commandFailed(`ip netns del ${ns}`, (err as Error).message)
    })
  }
  return mine
}

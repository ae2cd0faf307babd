import b4a from 'b4a'
import type Hyperswarm from 'hyperswarm'
import { z } from 'zod'
import { joinPath, type FsModule } from './runtime.js'

/**
 * Warm dial (issue 41): what a returning app remembers of the network, so that its next start
 * dials the panel and the peers that served it well at once instead of waiting for DHT
 * lookups. Kept in `<storeDir>/warm-peers.json` beside the replica (0600, atomic writes):
 *
 * - `nodes`: DHT nodes from the routing table. They seed the next start's table (hyperdht's
 *   `nodes`), so its first queries start near the target instead of at the bootstrap nodes.
 * - `peers`: the panel's key and the peers this app downloaded the most from (the origin,
 *   usually, and the best relaying viewers), each with the DHT nodes that relayed its last
 *   handshake. At the next start the swarm dials each one through those nodes (hyperdht's
 *   relay-address cache, the same path it uses to reconnect within a run) while the topic
 *   lookups run beside; a peer that no longer answers costs one failed dial.
 *
 * Stale entries expire: nodes after WARM_NODES_TTL_MS, peers after WARM_PEERS_TTL_MS (a
 * viewer's swarm key changes with each app start, and an origin's address with its box).
 * A missing, damaged or foreign file is ignored: warm dial only ever adds a faster path.
 */
export const WARM_FILE = 'warm-peers.json'
export const WARM_NODES_TTL_MS = 24 * 60 * 60 * 1000
export const WARM_PEERS_TTL_MS = 60 * 60 * 1000
/** Peers (besides the panel) remembered: the ones that served the most bytes. */
export const WARM_PEERS_MAX = 4
export const WARM_NODES_MAX = 32
/** How often a running app writes the file (a crash loses at most this much). */
export const WARM_SAVE_MS = 20_000
/** A dialed warm peer that is not the panel is released after this long (the topic takes over). */
export const WARM_DIAL_HOLD_MS = 30_000

const Node = z.strictObject({ host: z.string().min(1).max(64), port: z.number().int().min(1).max(65535) })
const Peer = z.strictObject({
  key: z.string().regex(/^[0-9a-f]{64}$/),
  role: z.enum(['panel', 'peer']),
  relays: z.array(Node).max(8),
  served: z.number().nonnegative(),
  seenAt: z.number().nonnegative()
})
const WarmFile = z.strictObject({
  v: z.literal(1),
  savedAt: z.number().nonnegative(),
  nodes: z.array(Node.extend({ seenAt: z.number().nonnegative() })).max(WARM_NODES_MAX),
  peers: z.array(Peer).max(WARM_PEERS_MAX + 1)
})
export type WarmState = z.infer<typeof WarmFile>
export type WarmPeer = z.infer<typeof Peer>

type RelayCache = { get(id: string): unknown; set(id: string, value: unknown): void }
/** hyperdht's relay-address cache (pinned hyperdht 6.34: `_relayAddressesCache`, keyed by the peer's hex key). */
function relayCache (swarm: Hyperswarm): RelayCache | null {
  const cache = (swarm.dht as unknown as { _relayAddressesCache?: RelayCache })._relayAddressesCache
  return cache !== undefined && typeof cache.get === 'function' && typeof cache.set === 'function' ? cache : null
}

/** The remembered state, fresh entries only; null when absent, damaged or empty. Never throws. */
export async function loadWarm (fs: FsModule, storeDir: string, now: number): Promise<WarmState | null> {
  try {
    const parsed = WarmFile.safeParse(JSON.parse(b4a.toString(await fs.readFile(joinPath(storeDir, WARM_FILE)), 'utf8')))
    if (!parsed.success) return null
    const state = parsed.data
    const nodes = state.nodes.filter((n) => now - n.seenAt < WARM_NODES_TTL_MS && n.seenAt <= now)
    const peers = state.peers.filter((p) => now - p.seenAt < WARM_PEERS_TTL_MS && p.seenAt <= now)
    return nodes.length === 0 && peers.length === 0 ? null : { ...state, nodes, peers }
  } catch {
    return null
  }
}

/** Writes the state atomically (temp file, rename). */
export async function saveWarm (fs: FsModule, storeDir: string, state: WarmState): Promise<void> {
  const path = joinPath(storeDir, WARM_FILE)
  const tmp = `${path}.tmp`
  await fs.writeFile(tmp, `${JSON.stringify(state)}\n`, { mode: 0o600 })
  await fs.rename(tmp, path)
}

/**
 * What to remember now: the routing table's nodes, the panel, and the peers that served the
 * most (`served`: bytes downloaded from each, by hex key), each with its relay addresses from
 * this run's dials; entries of `previous` still fresh and not seen again are kept.
 */
export function collectWarm (swarm: Hyperswarm, panelKey: string | null, served: ReadonlyMap<string, number>, previous: WarmState | null, now: number): WarmState {
  const cache = relayCache(swarm)
  const relaysOf = (key: string): Array<{ host: string; port: number }> => {
    const v = cache?.get(key)
    return Array.isArray(v) ? v.filter((n): n is { host: string; port: number } => typeof n?.host === 'string' && typeof n?.port === 'number').slice(0, 8).map((n) => ({ host: n.host, port: n.port })) : []
  }
  const nodes = (swarm.dht.toArray() as Array<{ host: string; port: number }>).slice(0, WARM_NODES_MAX).map((n) => ({ host: n.host, port: n.port, seenAt: now }))
  const peers: WarmPeer[] = []
  if (panelKey !== null) {
    const relays = relaysOf(panelKey)
    const old = previous?.peers.find((p) => p.key === panelKey)
    if (relays.length > 0) peers.push({ key: panelKey, role: 'panel', relays, served: 0, seenAt: now })
    else if (old !== undefined) peers.push(old)
  }
  const best = [...served].filter(([k]) => k !== panelKey).sort((a, b) => b[1] - a[1])
  for (const [key, bytes] of best) {
    if (peers.length > WARM_PEERS_MAX) break
    const relays = relaysOf(key)
    if (relays.length > 0 && bytes > 0) peers.push({ key, role: 'peer', relays, served: bytes, seenAt: now })
  }
  for (const p of previous?.peers ?? []) {
    if (peers.length > WARM_PEERS_MAX) break
    if (!peers.some((q) => q.key === p.key)) peers.push(p)
  }
  const keepNodes = nodes.length > 0 ? nodes : previous?.nodes ?? []
  return { v: 1, savedAt: now, nodes: keepNodes, peers }
}

/**
 * Dials the remembered peers through their relay nodes: seeds hyperdht's relay cache and
 * joins each peer explicitly; a peer other than the panel is released after
 * WARM_DIAL_HOLD_MS. Returns how many dials it started.
 */
export function dialWarm (swarm: Hyperswarm, state: WarmState, setTimer: (fn: () => void, ms: number) => void = (fn, ms) => { setTimeout(fn, ms).unref?.() }): number {
  const cache = relayCache(swarm)
  if (cache === null) return 0
  let n = 0
  for (const p of state.peers) {
    if (p.relays.length === 0) continue
    const key = b4a.from(p.key, 'hex')
    cache.set(p.key, p.relays)
    swarm.joinPeer(key)
    n++
    if (p.role !== 'panel') setTimer(() => { try { swarm.leavePeer(key) } catch { /* swarm gone */ } }, WARM_DIAL_HOLD_MS)
  }
  return n
}

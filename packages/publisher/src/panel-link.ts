import b4a from 'b4a'
import type Hyperswarm from 'hyperswarm'
import { sign } from '@arus/crypto'
import { createRpcClient, encodeRegisterPayload, RpcError, type RpcClient } from '@arus/rpc'
import type { Logger } from '@arus/service'
import { topicFor } from '@arus/swarm'

const hex = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')

/**
 * A publisher's link to its panel, shared by the broadcaster (live channels) and the VOD
 * library (titles) (spec 2 "Authentication" 3; docs/rpc-protocol.md "register"). It joins topicFor(panelKey) as a client, speaks RPC only on the connection
 * whose remote key is the panel key (opening the channel at once, as protomux requires),
 * and keeps every channel's registration current: a change is sent at once, every
 * registration is re-sent on each new panel connection (a restarted panel) and on every
 * heartbeat (unchanged, so the panel writes nothing). A rejection is kept verbatim as
 * `registerError`; without a panel connection it reads 'no panel connection for Ns'.
 */

/** What a live channel registers. */
export interface LiveRegistration {
  type?: 'live'
  feedKey: string | null
  isLive: boolean
  title: string
  category: string[]
}

/** What a VOD title registers: its finished feed and duration, or status 'unavailable' once deleted. */
export interface VodRegistration {
  type: 'vod'
  feedKey: string | null
  durationSec: number | null
  status: 'available' | 'unavailable'
  title: string
  description?: string
  category: string[]
}

/** One stream's desired registration; title, description and category seed the record once. */
export type Registration = LiveRegistration | VodRegistration

export interface RegistrationStatus { registered: boolean; registerError: string | null; lastRegisteredAt: number | null }

export interface PanelLinkInit {
  panelKey: Uint8Array
  /** Ed25519 secret key (64 bytes) that signs registers. */
  publisherKey: Uint8Array
  /** Enrolled publisher name; absent = the legacy shared key. */
  publisherName?: string | undefined
  heartbeatMs: number
  now?: () => number
}

export interface PanelLink {
  /** Call from the swarm's 'connection' handler, synchronously. */
  onConnection(conn: any): void
  start(): Promise<void>
  set(streamId: string, registration: Registration, key: Uint8Array): void
  forget(streamId: string): void
  status(streamId: string): RegistrationStatus
  connected(): boolean
  /** Resolves once in-flight registers settled (bounded by `timeoutMs`). */
  settle(timeoutMs: number): Promise<void>
  close(): Promise<void>
}

interface Entry {
  desired: Registration
  key: Uint8Array
  acked: string | null
  error: string | null
  lastOkAt: number | null
  lastTs: number
  /** The newest send's number: only its answer counts (an older one may still be out on a dying connection). */
  seq: number
  inflight: Promise<void> | null
  /** The connection the in-flight send went out on. */
  inflightOn: RpcClient | null
  again: boolean
}

export function createPanelLink (components: { swarm: Hyperswarm; log: Logger }, init: PanelLinkInit): PanelLink {
  const { swarm, log } = components
  const now = init.now ?? Date.now
  const entries = new Map<string, Entry>()
  // Every open connection to the panel (hyperswarm may hold two for a moment, then drop
  // one), each with its RPC channel opened at once; registers go over the newest.
  const clients = new Map<unknown, RpcClient>()
  let rpc: RpcClient | null = null
  let lostSince = now()
  let closed = false
  let heartbeat: NodeJS.Timeout | null = null

  async function sendOnce (streamId: string, e: Entry, client: RpcClient): Promise<void> {
    const seq = ++e.seq
    const desired = e.desired
    const ts = Math.max(now(), e.lastTs + 1)
    e.lastTs = ts
    const variant = desired.type === 'vod'
      ? { type: 'vod' as const, durationSec: desired.durationSec, status: desired.status, ...(desired.description ? { description: desired.description } : {}) }
      : { type: 'live' as const, isLive: desired.isLive }
    const payload = encodeRegisterPayload({
      streamId,
      ...(init.publisherName ? { publisher: init.publisherName } : {}),
      ...variant,
      feedKey: desired.feedKey,
      key: hex(e.key),
      title: desired.title,
      ...(desired.category.length > 0 ? { category: desired.category } : {}),
      ts
    })
    const sig = hex(sign(new TextEncoder().encode(payload), init.publisherKey))
    try {
      const reply = await client.register({ payload, sig })
      if (seq !== e.seq) return
      e.acked = JSON.stringify(desired)
      e.error = null
      e.lastOkAt = now()
      if (reply.changed) log.info({ event: 'register.ok', streamId, type: desired.type ?? 'live', feedKey: desired.feedKey }, 'registered with the panel')
      else log.debug({ event: 'register.unchanged', streamId }, 'register unchanged (the panel wrote nothing)')
    } catch (err) {
      if (seq !== e.seq) return
      if (err instanceof RpcError && err.code === 'RPC_REMOTE_ERROR') {
        e.acked = null
        e.error = err.reason ?? err.message
        log.warn({ event: 'register.rejected', streamId, reason: e.error }, 'the panel rejected a register')
      } else {
        log.debug({ event: 'register.failed', streamId, err: (err as Error).message }, 'register not delivered; will retry')
      }
    }
  }

  function send (streamId: string): void {
    const e = entries.get(streamId)
    const client = rpc
    if (!e || !client || closed) return
    // One register at a time per stream on a connection; but a send still out on an older
    // connection (one hyperswarm is about to drop, or a half-dead one) does not hold the
    // stream back until its RPC timeout: the newest connection gets its own send now, and
    // the older answer is ignored when it comes (seq).
    if (e.inflight && e.inflightOn === client) { e.again = true; return }
    e.again = false
    const inflight: Promise<void> = sendOnce(streamId, e, client).finally(() => {
      if (e.inflight !== inflight) return
      e.inflight = null
      e.inflightOn = null
      if (e.again && entries.get(streamId) === e) { e.again = false; send(streamId) }
    })
    e.inflight = inflight
    e.inflightOn = client
  }

  const sendAll = () => { for (const id of entries.keys()) send(id) }

  return {
    onConnection (socket) {
      if (!b4a.equals(socket.remotePublicKey, init.panelKey) || closed) return
      const client = createRpcClient(socket)
      clients.set(socket, client)
      rpc = client
      log.info({ event: 'panel.connected' }, 'connected to the panel')
      socket.once('close', () => {
        client.close()
        clients.delete(socket)
        if (rpc !== client) return
        rpc = [...clients.values()].pop() ?? null
        if (rpc) { sendAll(); return }
        lostSince = now()
        log.warn({ event: 'panel.disconnected' }, 'panel connection lost')
      })
      sendAll()
    },
    async start () {
      swarm.join(topicFor(init.panelKey), { server: false, client: true })
      // Also dial the panel's key directly: reconnects after a panel restart without waiting for a topic refresh.
      swarm.joinPeer(init.panelKey)
      heartbeat = setInterval(sendAll, init.heartbeatMs)
      heartbeat.unref()
    },
    set (streamId, registration, key) {
      const e = entries.get(streamId) ?? { desired: registration, key, acked: null, error: null, lastOkAt: null, lastTs: 0, seq: 0, inflight: null, inflightOn: null, again: false }
      e.desired = { ...registration, category: [...registration.category] }
      e.key = key
      entries.set(streamId, e)
      send(streamId)
    },
    forget (streamId) { entries.delete(streamId) },
    status (streamId) {
      const e = entries.get(streamId)
      if (!e) return { registered: false, registerError: null, lastRegisteredAt: null }
      const registered = e.acked === JSON.stringify(e.desired)
      const registerError = rpc ? e.error : `no panel connection for ${Math.floor((now() - lostSince) / 1000)}s`
      return { registered, registerError, lastRegisteredAt: e.lastOkAt }
    },
    connected: () => rpc !== null,
    async settle (timeoutMs) {
      const deadline = now() + timeoutMs
      // A send queued behind an in-flight one starts when that one settles: wait for both.
      for (;;) {
        const pending = [...entries.values()].map((e) => e.inflight).filter((p): p is Promise<void> => p !== null)
        const left = deadline - now()
        if (pending.length === 0 || left <= 0) return
        let timer: NodeJS.Timeout | undefined
        await Promise.race([Promise.allSettled(pending), new Promise((resolve) => { timer = setTimeout(resolve, left) })])
        clearTimeout(timer)
      }
    },
    async close () {
      closed = true
      if (heartbeat) clearInterval(heartbeat)
      for (const client of clients.values()) client.close()
      clients.clear()
      rpc = null
    }
  }
}

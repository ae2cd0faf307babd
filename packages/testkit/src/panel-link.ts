import b4a from 'b4a'
import type Hyperswarm from 'hyperswarm'
import { openCatalogReader, type CatalogReader } from '@arus/catalog'
import { fromHex } from '@arus/crypto'
import { createRpcClient, type RpcClient } from '@arus/rpc'
import { topicFor } from '@arus/swarm'
import type { TestContextLike } from './teardown.js'
import type { Testnet } from './testnet.js'
import { tmpStore } from './tmp.js'
import { withTimeout } from './wait.js'

/** A viewer-side peer of a panel: its replicated catalog and an RPC client (see {@link linkToPanel}). */
export interface PanelLink { swarm: Hyperswarm; reader: CatalogReader; rpc: RpcClient; conn: any }

/** A peer that joins the panel topic as client, replicates the catalog and speaks RPC to the panel only. */
export async function linkToPanel (t: TestContextLike, testnet: Testnet, panelKeyHex: string): Promise<PanelLink> {
  const panelKey = fromHex(panelKeyHex, 32)
  const store = await tmpStore(t)
  const swarm = testnet.createSwarm()
  const reader = openCatalogReader({ store, panelPublicKey: panelKey })
  // The RPC channel must open as soon as the connection exists: protomux rejects a
  // channel the other side opened while this side had none. Hyperswarm may briefly hold
  // two connections to the panel and drop one, so calls go to a connection still open.
  const links: Array<{ conn: any; rpc: RpcClient }> = []
  const current = () => links.find((l) => !l.conn.destroyed) ?? links[links.length - 1]!
  const connected = new Promise<void>((resolve) => {
    swarm.on('connection', (conn) => {
      conn.on('error', () => {})
      store.replicate(conn)
      if (!b4a.equals(conn.remotePublicKey, panelKey)) return
      const entry = { conn, rpc: createRpcClient(conn) }
      links.push(entry)
      conn.once('close', () => { if (links.length > 1) links.splice(links.indexOf(entry), 1) })
      resolve()
    })
  })
  swarm.join(topicFor(panelKey), { server: false, client: true })
  await withTimeout(connected, 20_000, 'connection to the panel')
  await reader.ready()
  const rpc: RpcClient = {
    hello: (...a) => current().rpc.hello(...a),
    login: (...a) => current().rpc.login(...a),
    session: (...a) => current().rpc.session(...a),
    register: (...a) => current().rpc.register(...a),
    report: (...a) => current().rpc.report(...a),
    request: (...a) => current().rpc.request(...a),
    close: () => { for (const l of links) l.rpc.close() }
  }
  const conn = current().conn
  return { swarm, reader, rpc, conn }
}

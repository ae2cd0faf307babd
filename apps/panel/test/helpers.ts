import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import b4a from 'b4a'
import type Hyperswarm from 'hyperswarm'
import { openCatalogReader, type CatalogReader } from '@arus/catalog'
import { fromHex } from '@arus/crypto'
import { createRpcClient, type RpcClient } from '@arus/rpc'
import { topicFor } from '@arus/swarm'
import { ARUS_BINS, PANEL_TEST_ENV, runCliInProcess, spawnPanelDaemon, tmpStore, withTimeout, type InProcessResult, type SpawnedProcess, type Testnet, type TestContextLike } from '@arus/testkit'
import { runCli } from '../src/cli.js'

export const PANEL_BIN = ARUS_BINS.panel

/** Env for a test panel: cheap Argon2id and proof of work (testkit's PANEL_TEST_ENV), JSON logs. */
export function panelEnv (dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { DATA_DIR: dataDir, ...PANEL_TEST_ENV, LOG_FORMAT: 'json', ...extra }
}

export type CliResult = InProcessResult

/** Runs one `arus-panel` command in-process (same program as the bin), stdin from `input`. */
export function cli (env: Record<string, string>, args: string[], input = ''): Promise<CliResult> {
  return runCliInProcess(runCli, 'arus-panel', args, { env, input })
}

/** Like `cli` but fails the test on a non-zero exit; parses --json output. */
export async function cliJson<T = any> (env: Record<string, string>, args: string[], input = ''): Promise<T> {
  const r = await cli(env, ['--json', ...args], input)
  if (r.code !== 0) throw new Error(`arus-panel ${args.join(' ')} exited ${r.code}: ${r.stderr}`)
  return JSON.parse(r.stdout) as T
}

export async function initPanel (env: Record<string, string>): Promise<{ panelKey: string; pairingCode: string }> {
  return cliJson(env, ['init'])
}

export async function legacyPublisherKey (dataDir: string): Promise<Uint8Array> {
  return fromHex((await readFile(join(dataDir, 'private', 'legacy-publisher.key'), 'utf8')).trim(), 64)
}

/** Starts `arus-panel run` as a separate process (testkit's spawnPanelDaemon) and waits for its ready line. */
export async function spawnPanel (t: TestContextLike | undefined, env: Record<string, string>): Promise<SpawnedProcess> {
  return (await spawnPanelDaemon(t, env, { readyTimeoutMs: 20_000 })).proc
}

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
    request: (...a) => current().rpc.request(...a),
    close: () => { for (const l of links) l.rpc.close() }
  }
  const conn = current().conn
  return { swarm, reader, rpc, conn }
}

import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import b4a from 'b4a'
import { fromHex, sign, toHex } from '@arus/crypto'
import { createRpcClient, encodeRegisterPayload, type RegisterPayloadInput, type RpcClient } from '@arus/rpc'
import { createPlayer, loginWithRetry, type Player, type PlayerComponents, type PlayerInit } from '@arus/sdk'
import { topicFor } from '@arus/swarm'
import { createStack as createKitStack, tmpDir, waitFor, type PanelHandle, type TestContextLike, type Testnet } from '@arus/testkit'

/**
 * A local testnet plus an initialized panel (testkit's createStack), the panel process not
 * yet running: store commands such as `create-user` go first, then {@link runPanel}.
 */
export interface Stack {
  testnet: Testnet
  dataDir: string
  panelKey: string
  /** The panel: its CLI, its admin API, start and stop. */
  handle: PanelHandle
}

export const ADMIN = { name: 'admin', password: 'admin-pw' }

/** Torn down with `t` (or `cleanupAll()` when `t` registers nothing). */
export async function createStack (t: TestContextLike, extraEnv: Record<string, string> = {}): Promise<Stack> {
  const kit = await createKitStack(t, { panel: { admin: ADMIN, env: extraEnv, start: false } })
  return { testnet: kit.testnet as Testnet, dataDir: kit.panel.dataDir, panelKey: kit.panel.panelKey, handle: kit.panel }
}

/** Calls the running panel's admin HTTP API as the stack's admin; throws on a non-2xx answer. A `Uint8Array` body goes as image/png. */
export function api<T = any> (stack: Stack, method: string, path: string, body?: unknown): Promise<T> {
  return stack.handle.api<T>(method, path, body, { contentType: 'image/png' })
}

/** One `arus-panel` CLI command (the panel process must not be running for store commands). */
export function panel<T = any> (stack: Stack, args: string[], input = ''): Promise<T> {
  return stack.handle.cli<T>(args, input)
}

/** Starts the panel process; it stops with the stack (`t` is kept for the callers' sake). */
export async function runPanel (_t: TestContextLike, stack: Stack): Promise<void> {
  await stack.handle.start()
}

export async function stopPanel (stack: Stack): Promise<void> {
  await stack.handle.stop()
}

/** A player on the stack's testnet with a fresh store directory, stopped after the test. */
export function newPlayer (t: TestContextLike, stack: Stack, init: PlayerInit = {}, components: PlayerComponents = {}): Player {
  const player = createPlayer({ panelPubKey: stack.panelKey, storeDir: tmpDir(t, 'arus-viewer-'), swarm: { bootstrap: stack.testnet.bootstrap }, ...init }, components)
  t.onTestFinished(() => player.stop())
  return player
}

/** connect() then the host login retry pattern. */
export async function connectAndLogin (player: Player, username: string, password: string) {
  await player.connect()
  return loginWithRetry(player, username, password, { attempts: 40, delayMs: 500 })
}

/**
 * Registers a live channel the way a broadcaster does (legacy shared publisher key), from a
 * separate peer speaking RPC to the panel. The panel must be running.
 */
export async function registerLive (_t: TestContextLike, stack: Stack, payload: Omit<RegisterPayloadInput, 'ts'>): Promise<void> {
  const secretKey = fromHex((await readFile(join(stack.dataDir, 'private', 'legacy-publisher.key'), 'utf8')).trim(), 64)
  const panelKey = fromHex(stack.panelKey, 32)
  const text = encodeRegisterPayload({ ts: Date.now(), ...payload } as RegisterPayloadInput)
  const swarm = stack.testnet.createSwarm()
  // The RPC channel opens as soon as the connection exists (protomux refuses a channel the
  // other side opened while this side had none); of two connections Hyperswarm may drop one.
  const links: Array<{ conn: { destroyed: boolean }; rpc: RpcClient }> = []
  swarm.on('connection', (conn) => {
    conn.on('error', () => {})
    if (b4a.equals(conn.remotePublicKey, panelKey)) links.push({ conn, rpc: createRpcClient(conn) })
  })
  try {
    swarm.join(topicFor(panelKey), { server: false, client: true })
    for (let attempt = 1; ; attempt++) {
      const link = await waitFor(() => links.findLast((l) => !l.conn.destroyed), { timeoutMs: 20_000, message: 'a connection to the panel' })
      try {
        await link.rpc.register({ payload: text, sig: toHex(sign(b4a.from(text), secretKey)) })
        return
      } catch (err) {
        if (attempt === 3) throw err
      }
    }
  } finally {
    await swarm.destroy()
  }
}

/** Every 64-hex-character string in a JSON-able value (key material looks like this). */
export function hexKeysIn (value: unknown): string[] {
  return JSON.stringify(value).match(/[0-9a-fA-F]{64}/g) ?? []
}

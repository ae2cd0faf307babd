import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import b4a from 'b4a'
import { fromHex, sign, toHex } from '@arus/crypto'
import { encodeRegisterPayload, type RegisterPayloadInput } from '@arus/rpc'
import { createPlayer, loginWithRetry, type Player, type PlayerComponents, type PlayerInit } from '@arus/sdk'
import { createTestnet, tmpDir, type SpawnedProcess, type TestContextLike, type Testnet } from '@arus/testkit'
import { cliJson, initPanel, linkToPanel, panelEnv, spawnPanel } from '../../../../apps/panel/test/helpers.js'

/** A local testnet plus an initialized panel (its process started by {@link runPanel}). */
export interface Stack {
  testnet: Testnet
  env: Record<string, string>
  dataDir: string
  panelKey: string
  panel: SpawnedProcess | null
  /** Base URL of the running panel's admin HTTP API. */
  adminUrl: string | null
  adminToken: string | null
}

export const ADMIN = { name: 'admin', password: 'admin-pw' }

export async function createStack (t: TestContextLike, extraEnv: Record<string, string> = {}): Promise<Stack> {
  const testnet = await createTestnet(t)
  const dataDir = tmpDir(t, 'arus-panel-')
  const env = panelEnv(dataDir, { BOOTSTRAP: testnet.bootstrapString, ADMIN_ENABLED: '1', ADMIN_PORT: '0', ...extraEnv })
  const { panelKey } = await initPanel(env)
  await cliJson(env, ['add-admin', ADMIN.name], `${ADMIN.password}\n`)
  return { testnet, env, dataDir, panelKey, panel: null, adminUrl: null, adminToken: null }
}

/** Calls the running panel's admin HTTP API as the stack's admin; throws on a non-2xx answer. */
export async function api<T = any> (stack: Stack, method: string, path: string, body?: unknown): Promise<T> {
  if (stack.adminUrl === null) throw new Error('panel is not running')
  if (stack.adminToken === null) {
    const login = await fetch(`${stack.adminUrl}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: ADMIN.name, password: ADMIN.password }) })
    if (!login.ok) throw new Error(`admin login: ${login.status} ${await login.text()}`)
    stack.adminToken = ((await login.json()) as { token: string }).token
  }
  const raw = body instanceof Uint8Array
  const res = await fetch(`${stack.adminUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${stack.adminToken}`, ...(body === undefined ? {} : { 'content-type': raw ? 'image/png' : 'application/json' }) },
    ...(body === undefined ? {} : { body: raw ? body : JSON.stringify(body) })
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return (text === '' ? null : JSON.parse(text)) as T
}

/** One `arus-panel` CLI command (the panel process must not be running for store commands). */
export function panel<T = any> (stack: Stack, args: string[], input = ''): Promise<T> {
  return cliJson<T>(stack.env, args, input)
}

export async function runPanel (t: TestContextLike, stack: Stack): Promise<SpawnedProcess> {
  stack.panel = await spawnPanel(t, stack.env)
  const line = await stack.panel.waitForLine(/"event":"admin\.listening"/, 20_000)
  stack.adminUrl = (JSON.parse(line.input ?? '{}') as { url: string }).url
  stack.adminToken = null
  return stack.panel
}

export async function stopPanel (stack: Stack): Promise<void> {
  await stack.panel?.stop()
  stack.panel = null
  stack.adminUrl = null
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
 * separate peer. The panel must be running.
 */
export async function registerLive (t: TestContextLike, stack: Stack, payload: Omit<RegisterPayloadInput, 'ts'>): Promise<void> {
  const secretKey = fromHex((await readFile(join(stack.dataDir, 'private', 'legacy-publisher.key'), 'utf8')).trim(), 64)
  const link = await linkToPanel(t, stack.testnet, stack.panelKey)
  const text = encodeRegisterPayload({ ts: Date.now(), ...payload } as RegisterPayloadInput)
  await link.rpc.register({ payload: text, sig: toHex(sign(b4a.from(text), secretKey)) })
  await link.swarm.destroy()
}

/** Every 64-hex-character string in a JSON-able value (key material looks like this). */
export function hexKeysIn (value: unknown): string[] {
  return JSON.stringify(value).match(/[0-9a-fA-F]{64}/g) ?? []
}


import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { generateSigningKeyPair, toHex } from '@arus/crypto'
import { createPlayer, loginWithRetry, type Player } from '@arus/sdk'
import { linkToPanel, tmpDir, viewerLogin, type PanelHandle, type PanelLink, type TestContextLike, type Testnet } from '@arus/testkit'

/** What a local receiver got. */
export interface Received { url: string; headers: IncomingMessage['headers']; body: string; at: number }

/**
 * A local HTTP server standing in for a notification target (the webhook, or the messenger's
 * bot API): the panel's real client on one side, a real server on the other. `reply` decides
 * each answer; closed with the test.
 */
export async function receiver (t: TestContextLike, reply: (req: IncomingMessage, res: ServerResponse) => void = (_q, res) => { res.end('{"ok":true}') }) {
  const got: Received[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => { body += c.toString() })
    req.on('end', () => { got.push({ url: req.url ?? '', headers: req.headers, body, at: Date.now() }); reply(req, res) })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.onTestFinished(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got }
}

/** One enrolled device: its session token, and the identities reports must never reveal. */
export interface Device { username: string; deviceId: string; token: string }

/** Logs each user in from `perUser` fresh devices over one link (the real hello → login → session flow). */
export async function enrollDevices (link: PanelLink, users: Array<{ name: string; password: string }>, perUser: number): Promise<Device[]> {
  const out: Device[] = []
  for (const u of users) {
    for (let i = 0; i < perUser; i++) {
      const device = generateSigningKeyPair()
      const s = await viewerLogin(link.rpc, link.reader, { username: u.name, password: u.password, device })
      out.push({ username: u.name, deviceId: toHex(device.publicKey), token: s.token })
    }
  }
  return out
}

/** A link to a started panel. */
export function link (t: TestContextLike, testnet: Testnet, panel: PanelHandle): Promise<PanelLink> {
  return linkToPanel(t, testnet, panel.panelKey)
}

/** A report request body for the raw RPC. */
export function report (token: string, channel: string, category = 'buffering') {
  return { token, category: category as 'buffering', text: null, channel, appVersion: '1.0.0', platform: 'test', peers: 3, events: [{ kind: 'status' as const, at: Date.now(), detail: 'stalled at live edge' }] }
}

/** Identities (usernames, device ids) that occur in `text`. */
export function identitiesIn (text: string, devices: readonly Device[]): string[] {
  const found = new Set<string>()
  for (const d of devices) {
    if (text.includes(d.username)) found.add(d.username)
    if (text.toLowerCase().includes(d.deviceId)) found.add(d.deviceId)
  }
  return [...found]
}

/** A real SDK viewer logged in to `panel` (its own swarm and store), stopped with the test. */
export async function sdkViewer (t: TestContextLike, testnet: Testnet, panel: PanelHandle, user: { name: string; password: string }, init: { now?: () => number } = {}): Promise<Player> {
  const player = createPlayer({ panelPubKey: panel.panelKey, storeDir: tmpDir(t, 'arus-viewer-'), swarm: { bootstrap: testnet.bootstrap } }, init.now ? { now: init.now } : {})
  t.onTestFinished(() => player.stop())
  await player.connect()
  await loginWithRetry(player, user.name, user.password, { attempts: 40, delayMs: 500 })
  return player
}

import { describe, expect, it } from 'vitest'
import Hyperswarm from 'hyperswarm'
import { createRequire } from 'node:module'
import { createRpcResponder } from '@arus/rpc'
import { createLogger } from '@arus/service'
import { generateSigningKeyPair } from '@arus/crypto'
import { waitFor } from '@arus/testkit'
import { createPanelLink } from '../src/index.js'

// The Noise stream hyperswarm's own connections are, taken from its own dependency tree.
const fromSwarm = createRequire(createRequire(import.meta.url).resolve('hyperswarm'))
const SecretStream = createRequire(fromSwarm.resolve('hyperdht'))('@hyperswarm/secret-stream')

/** A Noise connection pair in this process, as hyperswarm would hand each side. */
async function connectionPair (panel: { publicKey: Buffer, secretKey: Buffer }): Promise<{ local: any, remote: any }> {
  const local = new SecretStream(true)
  const remote = new SecretStream(false, null, { keyPair: panel })
  local.rawStream.pipe(remote.rawStream).pipe(local.rawStream)
  await Promise.all([local.opened, remote.opened])
  return { local, remote }
}

describe('the panel link', () => {
  it('re-sends on a new panel connection at once, without waiting out a register stuck on an older one', async (t) => {
    const panel = SecretStream.keyPair()
    // The link only calls join and joinPeer on the swarm; a swarm that never connects is enough here.
    const swarm = new Hyperswarm({ bootstrap: [] })
    t.onTestFinished(() => swarm.destroy())
    const lines: string[] = []
    const log = createLogger({ name: 'link', level: 'debug', destination: { write: (s: string) => { lines.push(s) } } })
    const publisher = generateSigningKeyPair()
    const link = createPanelLink({ swarm, log }, { panelKey: panel.publicKey, publisherKey: publisher.secretKey, heartbeatMs: 60_000 })
    t.onTestFinished(() => link.close())

    // Connection A: the panel's end took the register and will never answer it (a
    // connection hyperswarm is about to drop, or one whose remote went away).
    const a = await connectionPair(panel)
    let heldOnA = 0
    createRpcResponder(a.remote, { register: () => { heldOnA++; return new Promise(() => {}) } })
    link.onConnection(a.local)
    link.set('ch1', { feedKey: null, isLive: false, title: 'One', category: [] }, new Uint8Array(32))
    await waitFor(() => heldOnA === 1, { timeoutMs: 5_000, message: 'register held on A' })
    expect(link.status('ch1')).toMatchObject({ registered: false, registerError: null })

    // Connection B answers. The old link waited for A's RPC timeout (10 s) before trying B.
    const b = await connectionPair(panel)
    let answeredOnB = 0
    createRpcResponder(b.remote, { register: () => { answeredOnB++; return { ok: true, changed: true } } })
    const before = Date.now()
    link.onConnection(b.local)
    await waitFor(() => link.status('ch1').registered, { timeoutMs: 5_000, message: 'registered over B' })
    expect(Date.now() - before).toBeLessThan(5_000)
    expect(answeredOnB).toBe(1)

    // A dies late with its request unanswered: that changes nothing.
    a.local.destroy()
    a.remote.destroy()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(link.status('ch1')).toMatchObject({ registered: true, registerError: null })
    b.local.destroy()
    b.remote.destroy()
  })
})

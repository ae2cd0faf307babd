import { pipeline } from 'node:stream'
import { describe, expect, it } from 'vitest'
import sodium from 'sodium-native'
import { ORIGIN_PROOF_EXTENSION, originProofs, watchOrigins } from '@arus/feed'
import { tmpStore, waitFor, type TestContextLike } from '@arus/testkit'

// Origin proofs (issue 42, found in the network lab): a keyless mirror tells the origin of a
// core from the viewers around it by a signature only the core's writer can make.

/** Replicates two stores over a Noise stream pair; returns the two ends. */
function link (t: TestContextLike, a: any, b: any): { a: any; b: any } {
  const sa = a.replicate(true)
  const sb = b.replicate(false)
  pipeline(sa, sb, sa, () => {})
  t.onTestFinished(() => { sa.destroy(); sb.destroy() })
  return { a: sa, b: sb }
}

/** The hypercore peer object of `core` whose connection's remote key is `remote`. */
async function peerOf (core: any, remote: Uint8Array): Promise<any> {
  let found: any
  await waitFor(() => (found = core.peers.find((p: any) => Buffer.from(p.stream.remotePublicKey).equals(Buffer.from(remote)))) !== undefined,
    { timeoutMs: 15_000, message: 'the peer connected' })
  return found
}

async function setup (t: TestContextLike) {
  const originStore = tmpStore(t)
  const origin = originStore.get({ name: 'feed' })
  await origin.ready()
  for (let i = 0; i < 4; i++) await origin.append(Buffer.alloc(1024, i))
  const mirrorStore = tmpStore(t)
  const mirror = mirrorStore.get({ key: origin.key })
  await mirror.ready()
  const proven: unknown[] = []
  const watch = watchOrigins(mirror, (peer) => { proven.push(peer) })
  t.onTestFinished(() => watch.close())
  const toMirror = link(t, originStore, mirrorStore)
  await mirror.update({ wait: true }) // the manifest is here
  return { originStore, origin, mirrorStore, mirror, watch, proven, toMirror }
}

describe('origin proofs', () => {
  it('the writer\'s proof makes its peer the origin at the mirror, until it disconnects', async (t) => {
    const { origin, mirror, watch, proven, toMirror } = await setup(t)
    const proofs = originProofs(origin)
    t.onTestFinished(() => proofs.close())
    const atOrigin = await peerOf(origin, toMirror.b.publicKey)
    const atMirror = await peerOf(mirror, toMirror.a.publicKey)
    expect(watch.isOrigin(atMirror)).toBe(false)
    proofs.send(atOrigin)
    await waitFor(() => watch.isOrigin(atMirror), { timeoutMs: 10_000, message: 'the proof accepted' })
    expect(watch.count()).toBe(1)
    expect(proven).toEqual([atMirror])
    toMirror.a.destroy()
    await waitFor(() => watch.count() === 0, { timeoutMs: 10_000, message: 'forgotten on disconnect' })
  })

  it('refuses a proof signed by another key, and an origin\'s proof passed on by a viewer', async (t) => {
    const { originStore, origin, mirrorStore, mirror, watch } = await setup(t)
    // A viewer replicating with both: it receives the origin's proof made for its own connection.
    const viewerStore = tmpStore(t)
    const viewer = viewerStore.get({ key: origin.key })
    await viewer.ready()
    const received: Buffer[] = []
    const viewerExt = viewer.registerExtension(ORIGIN_PROOF_EXTENSION, { onmessage: (m: Buffer) => { received.push(m) } })
    const originToViewer = link(t, originStore, viewerStore)
    const viewerToMirror = link(t, viewerStore, mirrorStore)
    await viewer.update({ wait: true })
    const proofs = originProofs(origin)
    t.onTestFinished(() => proofs.close())
    proofs.send(await peerOf(origin, originToViewer.b.publicKey))
    await waitFor(() => received.length === 1, { timeoutMs: 10_000, message: 'the viewer got its proof' })
    const viewerAtMirror = await peerOf(mirror, viewerToMirror.a.publicKey)
    const mirrorAtViewer = await peerOf(viewer, viewerToMirror.b.publicKey)
    // Passed on as is: bound to the viewer's connection, not the mirror's.
    viewerExt.send(received[0], mirrorAtViewer)
    // Signed with a key of its own over the right bytes.
    const kp = { pk: Buffer.alloc(32), sk: Buffer.alloc(64) }
    sodium.crypto_sign_keypair(kp.pk, kp.sk)
    const forged = Buffer.alloc(64)
    sodium.crypto_sign_detached(forged, Buffer.concat([Buffer.from('arus origin proof v1\0'), origin.key, viewerToMirror.b.publicKey]), kp.sk)
    viewerExt.send(forged, mirrorAtViewer)
    viewerExt.send(Buffer.alloc(3), mirrorAtViewer) // malformed
    // A control after them on the same connection: the messages above were delivered and judged.
    const control = viewer.registerExtension('arus/test-control', {})
    const seen: Buffer[] = []
    mirror.registerExtension('arus/test-control', { onmessage: (m: Buffer) => { seen.push(m) } })
    control.send(Buffer.from('after'), mirrorAtViewer)
    await waitFor(() => seen.length === 1, { timeoutMs: 10_000, message: 'the control message' })
    expect(watch.isOrigin(viewerAtMirror)).toBe(false)
    expect(watch.count()).toBe(0)
  })
})

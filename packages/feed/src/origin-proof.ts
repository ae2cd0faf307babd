import type Hypercore from 'hypercore'
import sodium from 'sodium-native'

/**
 * Origin proofs: how a keyless mirror (the repeater) tells the origin of a live core from the
 * viewers around it. The origin signs, with the core's own writer key, the mirror's Noise
 * public key on that connection; the mirror checks the signature against the core's manifest.
 * Only the core's writer can make one, and a proof names the connection it was made for, so a
 * viewer can neither forge one nor pass one on.
 *
 * Why: the head of a live core exists only at the origin at first. A mirror that asks random
 * peers for it (hypercore's way) queues most of its requests at viewers behind slow home
 * uplinks and falls behind the head; viewers then never ask it, and the origin's capped uplink
 * serves them all (the network lab, docs/benchmarks.md "Swarm with a repeater"). With a proof
 * the mirror asks the origin only, at hypercore's full request window.
 *
 * Sent over a hypercore extension (`ORIGIN_PROOF_EXTENSION`): the origin sends it to its
 * trusted relays (upload shaping's `relays`) when they connect and again on their first block
 * request (by then the mirror holds the manifest it checks against).
 */
export const ORIGIN_PROOF_EXTENSION = 'arus/origin-proof/1'
const DOMAIN = Buffer.from('arus origin proof v1\0')

interface ExtPeer { stream?: { remotePublicKey?: Uint8Array; publicKey?: Uint8Array } }
interface Extension { send(message: Uint8Array, peer: unknown): void; destroy(): void }
interface ExtCore {
  key: Uint8Array | null
  keyPair?: { publicKey: Uint8Array; secretKey: Uint8Array | null } | null
  manifest?: { signers?: Array<{ publicKey: Uint8Array }> } | null
  registerExtension(name: string, handlers: { onmessage?: (message: Uint8Array, peer: unknown) => void }): Extension
}

function signable (coreKey: Uint8Array, mirrorKey: Uint8Array): Buffer {
  return Buffer.concat([DOMAIN, coreKey, mirrorKey])
}

export interface OriginProofSender {
  /** Sends this connection's proof to `peer` (nothing when the core is not writable here). */
  send(peer: unknown): void
  close(): void
}

/** The origin's side: proofs signed with the core's writer key. */
export function originProofs (core: Hypercore): OriginProofSender {
  const c = core as unknown as ExtCore
  const ext = c.registerExtension(ORIGIN_PROOF_EXTENSION, {})
  return {
    send (peer) {
      const mirrorKey = (peer as ExtPeer).stream?.remotePublicKey
      const secretKey = c.keyPair?.secretKey
      if (c.key === null || mirrorKey === undefined || secretKey === null || secretKey === undefined) return
      const sig = Buffer.alloc(sodium.crypto_sign_BYTES)
      sodium.crypto_sign_detached(sig, signable(c.key, mirrorKey), Buffer.from(secretKey.buffer, secretKey.byteOffset, secretKey.byteLength))
      try { ext.send(sig, peer) } catch { /* the peer is gone */ }
    },
    close () { ext.destroy() }
  }
}

export interface OriginWatch {
  /** Whether `peer` proved it is the core's origin. */
  isOrigin(peer: unknown): boolean
  /** Origin peers connected now. */
  count(): number
  close(): void
}

/** The mirror's side: a peer whose proof verifies is the origin (until it disconnects). */
export function watchOrigins (core: Hypercore, onOrigin?: (peer: unknown) => void): OriginWatch {
  const c = core as unknown as ExtCore
  const origins = new Set<unknown>()
  const verify = (sig: Uint8Array, peer: unknown): boolean => {
    const ownKey = (peer as ExtPeer).stream?.publicKey
    const signers = c.manifest?.signers ?? []
    if (c.key === null || ownKey === undefined || sig.byteLength !== sodium.crypto_sign_BYTES || signers.length !== 1) return false
    const pub = signers[0]!.publicKey
    if (pub.byteLength !== sodium.crypto_sign_PUBLICKEYBYTES) return false
    return sodium.crypto_sign_verify_detached(Buffer.from(sig), signable(c.key, ownKey), Buffer.from(pub))
  }
  const ext = c.registerExtension(ORIGIN_PROOF_EXTENSION, {
    onmessage (message, peer) {
      if (origins.has(peer) || !verify(message, peer)) return
      origins.add(peer)
      onOrigin?.(peer)
    }
  })
  const onRemove = (peer: unknown): void => { origins.delete(peer) }
  core.on('peer-remove', onRemove)
  return {
    isOrigin: (peer) => origins.has(peer),
    count: () => origins.size,
    close () {
      core.off('peer-remove', onRemove)
      ext.destroy()
      origins.clear()
    }
  }
}

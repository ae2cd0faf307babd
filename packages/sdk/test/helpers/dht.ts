import b4a from 'b4a'
import type { Testnet } from '@arus/testkit'

/** Public keys (hex) announced on `topic`, from a fresh DHT lookup by a node of its own. */
export async function announcedOn (testnet: Testnet, topic: Uint8Array): Promise<Set<string>> {
  const swarm = testnet.createSwarm()
  const found = new Set<string>()
  try {
    const query = swarm.dht.lookup(topic)
    for await (const reply of query) {
      for (const peer of (reply as { peers: Array<{ publicKey: Uint8Array }> }).peers) found.add(b4a.toString(peer.publicKey, 'hex'))
    }
  } finally {
    await swarm.destroy()
  }
  return found
}

import b4a from 'b4a'
import sodium from 'sodium-native'
import { SwarmError } from './errors.js'
import { PUBLIC_KEY_BYTES, TOPIC_BYTES } from './constants.js'

/**
 * The Hyperswarm topic for a public key: BLAKE2b-256 of the 32-byte key, unkeyed
 * (ARCHITECTURE.md "Panel identity and catalog": the panel joins BLAKE2b-256(panel public
 * key) as server). Note this differs from hypercore's discovery key, which is a keyed hash.
 * @throws SwarmError `SWARM_BAD_KEY` unless `publicKey` is a 32-byte Uint8Array.
 */
export function topicFor (publicKey: Uint8Array): Uint8Array {
  if (!(publicKey instanceof Uint8Array)) throw SwarmError.badKey('public key', 'expected a Uint8Array')
  if (publicKey.byteLength !== PUBLIC_KEY_BYTES) {
    throw SwarmError.badKey('public key', `expected ${PUBLIC_KEY_BYTES} bytes, got ${publicKey.byteLength}`)
  }
  const topic = b4a.alloc(TOPIC_BYTES)
  sodium.crypto_generichash(topic, publicKey)
  return topic
}

/** Default Hyperswarm connection cap (spec 3, SDK option `swarm.maxPeers`: "maxPeers 64"). */
export const DEFAULT_MAX_PEERS = 64

/** Loopback bind address used whenever the bootstrap list is loopback-only (VERSIONS.md gotchas). */
export const LOOPBACK_HOST = '127.0.0.1'

/** Topic length in bytes: BLAKE2b-256 (ARCHITECTURE.md "Panel identity and catalog"). */
export const TOPIC_BYTES = 32

/** Ed25519 public and secret key lengths (the swarm's Noise key pair). */
export const PUBLIC_KEY_BYTES = 32
export const SECRET_KEY_BYTES = 64

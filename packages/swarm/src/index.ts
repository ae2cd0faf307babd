/**
 * @packageDocumentation
 * `@arus/swarm` builds the networking pieces every Arus process shares: Hyperswarm over
 * its own HyperDHT (loopback-aware), Corestore on disk, the BLAKE2b-256 topic of a public
 * key, `BOOTSTRAP` list parsing, replication wiring, ordered teardown, UDP socket buffer
 * tuning and a small local DHT testnet (also shipped as the `arus-testnet` bin).
 *
 * A bootstrap list of loopback hosts means a local testnet: the DHT then binds
 * `127.0.0.1` and runs `firewalled: false`, without which a server in another process on
 * the same machine is not reliably reachable (shared/VERSIONS.md, "Gotchas").
 */
export { SwarmError, SWARM_ERROR_CODES } from './errors.js'
export type { SwarmErrorCode } from './errors.js'
export { DEFAULT_MAX_PEERS } from './constants.js'
export { parseBootstrap, formatBootstrap, isLoopbackBootstrap, isLoopbackHost } from './bootstrap.js'
export type { BootstrapNode } from './bootstrap.js'
export { topicFor } from './topic.js'
export { createSwarm, createStore } from './create-swarm.js'
export type { SwarmInit } from './create-swarm.js'
export { replicateOnConnection, closeAll } from './lifecycle.js'
export type { Closable } from './lifecycle.js'
export { tuneSocketBuffers } from './socket-buffers.js'
export type { SocketBufferInit, SocketBufferSizes } from './socket-buffers.js'
export { startLocalTestnet } from './local-testnet.js'
export type { LocalTestnet, LocalTestnetInit } from './local-testnet.js'

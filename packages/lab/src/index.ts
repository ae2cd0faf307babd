/**
 * @packageDocumentation
 * `@arus/lab` — an internet in Linux network namespaces for the swarm's real-network tests
 * and benchmark: a routing core whose every forwarded packet passes a userspace delay stage
 * (round-trip times, jitter, loss; the kernel here has no netem), NAT homes (nftables
 * masquerade, port-preserving or randomized) with capped up- and downlinks (tbf), a DHT on
 * lab addresses, an origin box, and viewer agents that run the real SDK with a player
 * model. Needs root. See README.md.
 */
export { LabSpec, HomeSpec, planLab, delayRules, labPrefix, labBootstrap, DHT_PORT } from './spec.js'
export type { LabPlan, HomePlan, DevicePlan } from './spec.js'
export { startLab, labDown, labLeftovers, labPids, checkLabHost } from './lab.js'
export type { Lab, StartLabInit } from './lab.js'
export { natRules, capEgress } from './topology.js'
export { LabError, LAB_ERROR_CODES } from './errors.js'
export type { LabErrorCode } from './errors.js'
export type { LabProcess, LabProcessInit } from './process.js'
export { LAB_ENV } from './process.js'
export type { DelayStats } from './delay.js'
export { startAgent } from './agent-client.js'
export type { Agent } from './agent-client.js'
export type { AgentViewer, ViewerReport } from './agent-protocol.js'
export { runPlayerModel, parsePlaylist } from './player-model.js'
export type { PlayerModelInit, PlayerModelStats } from './player-model.js'

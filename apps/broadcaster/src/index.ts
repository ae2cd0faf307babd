/**
 * @packageDocumentation
 * The Arus broadcaster daemon: live channels from ffmpeg into encrypted P2P feeds (one
 * Hyperdrive per channel generation, encrypted with the stream key), registered with the
 * panel over the DHT, kept on air by a watchdog with an offline slate, and driven through a
 * control API and UI (docs/broadcaster.md).
 */
export { buildProgram, runCli } from './cli.js'
export type { CliIO } from '@arus/service'
export { main, type RunningBroadcaster } from './main.js'
export { broadcasterEnvSchema, loadBroadcasterConfig, type BroadcasterConfig } from './config.js'
export { BroadcasterError, BROADCASTER_ERROR_CODES, type BroadcasterErrorCode } from './errors.js'
export type { ChannelView } from './channels/view.js'
export type { ChannelState } from './pipeline/watchdog.js'

/**
 * @arus/react-native: the Arus viewer engine for React Native apps (spec 3 "Cross-platform
 * mobile binding"). The engine runs in a Bare worklet (react-native-bare-kit) and is driven
 * over the engine IPC (docs/engine-ipc.md).
 */
export { ArusBackend, MIN_ENGINE_API_LEVEL, currentDevice } from './backend.js'
export type { BackendInit, DeviceInfo, MessageListener, ReportInput, StartOptions, WorkletLike } from './backend.js'
export { ArusVideo, DEFAULT_STALL_TIMEOUT_MS, ZAP_BUFFER_CONFIG } from './video.js'
export type { ArusVideoProps, SourceEvent, StallEvent, TuneEvent, VideoError } from './video.js'
export { EngineNotice } from './notice.js'
export type { EngineNoticeProps } from './notice.js'
export type { EngineMessage, EnginePrefs, EpgEntry, HostState, ReportCategory, StreamItem, VodProvider } from '@arus/engine-protocol'

/**
 * `@arus/sdk` — the Arus viewer engine. It joins a panel's DHT topic, replicates and verifies
 * the panel-signed catalog, logs in with the OPRF protocol (the password never leaves the
 * process), unseals the stream keys the account was granted, and serves entitled streams as
 * plain HLS on `http://127.0.0.1:<random port>/index.m3u8` for any HLS player. Stream keys never
 * leave the engine: the display list and resolve results carry metadata and URLs only.
 *
 * The engine core reaches the network server and the file system only through an injected
 * {@link PlayerRuntime} (Node's `http` and `fs/promises` by default), so it can run elsewhere.
 *
 * Spec: /work/shared/spec/3-viewer-sdk.md; ARCHITECTURE.md "Login", "Local HLS serving".
 * @packageDocumentation
 */
import { PlayerImpl } from './player.js'
import type { PlayerRuntime } from './runtime.js'
import type { Phase } from './trace.js'
import type { TuneState } from '@arus/engine-protocol'

export { SdkError, SDK_ERROR_CODES } from './errors.js'
export type { SdkErrorCode } from './errors.js'
export { checkSession, sessionLive } from './session.js'
export type { SessionPayload, SessionDb } from './session.js'
export { createEpgService, useEpg } from './epg.js'
export type { EpgInit, EpgService, EpgResult, EpgEntry, FetchLike } from './epg.js'
export { loginWithRetry } from './retry.js'
export type { LoginRetryInit } from './retry.js'
export type { Phase } from './trace.js'
export type { PlayerRuntime, HttpModule, HttpServerLike, HttpRequestLike, HttpResponseLike, FsModule } from './runtime.js'

/** Zap prefetch settings (spec 3 "zapPrefetch object keys"); every key optional. */
export interface ZapPrefetchInit {
  /** Channels warmed on each side. Default 1. */
  neighbors?: number
  /** Warm-loop tick. Default 4000 ms. */
  intervalMs?: number
  /** Once the surf direction is known, warm only that side; a menu jump resets to both. Default true. */
  directional?: boolean
  /** Suspend when the active playlist stops advancing this long. Default 12000 ms. */
  stallMs?: number
  /** Clean-advance run needed before a stall or thin suspension lifts. Default 60000 ms. */
  resumeMs?: number
  /** Neighbor segments must download at least this many times realtime, else suspend. Default 3. */
  minHeadroom?: number
}

/** 'reseed' announces feed topics so other viewers may fetch from this one; 'client-only' does not. */
export type UploadPolicy = 'reseed' | 'client-only'

/** createPlayer options (spec 3 "createPlayer(opts) options"); a panel key must come here or in connect(). */
export interface PlayerInit {
  /** Panel public key, 64 hex characters. */
  panelPubKey?: string
  /** Disposable replica cache directory. Default './arus-store'. Safe to delete while stopped. */
  storeDir?: string
  /** Open entitled feeds' DHT topics after login: true all, N the first N by curated order. Default false. */
  prewarm?: boolean | number
  /** Tune ladder timings. Defaults: timeoutMs 30000, relookupMinMs 5000, relookupMaxMs 30000 (backoff cap), rescanMs 10000 (0 disables). */
  tune?: { timeoutMs?: number; relookupMinMs?: number; relookupMaxMs?: number; rescanMs?: number }
  /** Keep the newest segment of adjacent channels replicated. Default off. */
  zapPrefetch?: boolean | ZapPrefetchInit
  /** Default 'reseed'. */
  uploadPolicy?: UploadPolicy
  /** maxPeers (default 64); bootstrap: DHT nodes of a private or test network (omit for the public DHT). */
  /**
   * maxPeers (64); bootstrap (the public DHT); warmDial (true): remember the panel, the peers
   * that served this app best and DHT nodes in the store dir, and dial them at the next start
   * beside the DHT lookups (docs/architecture.md "Swarm behaviour under real networks").
   */
  swarm?: { maxPeers?: number; bootstrap?: Array<{ host: string; port: number }>; warmDial?: boolean }
  /**
   * Local HLS server (Arus): holdMs (8000) bounds how long a request for media not yet replicated
   * is held; stallMs (10000) aborts a body read that receives nothing; readAheadSegments (3);
   * allowOrigin (null: none) is sent as Access-Control-Allow-Origin: the explicit opt-in for a
   * browser player in a page of another origin (hls.js); without it no web page on the device
   * can read the stream.
   */
  server?: { holdMs?: number; stallMs?: number; readAheadSegments?: number; allowOrigin?: string | null }
  /**
   * The replica store (Arus): writeBufferMiB (2, 1-64) is RocksDB's memtable, which media
   * passes through before it is flushed to disk; it bounds the engine's memory at any bitrate.
   */
  storage?: { writeBufferMiB?: number }
  /** Human label of this device in the account's device list (at most 64 characters). */
  deviceLabel?: string
}

/** Injected collaborators; everything defaults to the host runtime (Node). */
export interface PlayerComponents {
  /** http and fs modules of the host runtime. Default: Node's `http` and `fs/promises`. */
  runtime?: PlayerRuntime
  /** Clock (epoch ms); report cooldowns read it. Default Date.now. */
  now?: () => number
}

/** One entitled stream as a host shows it. Metadata and URLs only — never a key. */
export interface DisplayItem {
  id: string
  title: string
  description: string
  category: string[]
  type: 'live' | 'vod'
  /** live: 'live' | 'idle'; vod: 'available' | 'unavailable'. */
  status: string
  /** Live records only; null for vod. */
  isLive: boolean | null
  /** Vod runtime in seconds; null for live or when unknown. */
  durationSec: number | null
  /** Curated order 0-9999 (also the zap ring order), null when unordered. */
  order: number | null
  featured: boolean
  /** The parental flag set by the operator: the app decides what it means (a PIN, a hidden rail). */
  restricted: boolean
  /** Art: a local URL (P2P art), the record's absolute https URL, or ''. */
  poster: string
  backdrop: string
  logo: string
  /** A redirect (CDN) channel. */
  redirect: boolean
  /** Whether resolve can play it now (a feed is published, or it is a redirect). */
  available: boolean
  epgUrl: string | null
  epgId: string | null
  /** Derived, not durable: always null here. */
  viewerCount: null
}

/** One category rail as the operator presents it. */
export interface CategoryRail {
  slug: string
  /** The label shown (the operator's rename, else the label the records use). */
  label: string
  /** Curated order 0-9999, null when unordered (unordered rails come last, by label). */
  order: number | null
}

/** The external VOD provider settings (spec 1 svcmeta/vod): where an app browses the operator's VOD catalog. */
export interface VodProvider {
  enabled: boolean
  /** https base URL of the provider's API. */
  apiBase: string
  service: string
  sources: { movies?: string; series?: string }
  params: Record<string, string>
}

/** resolve() result (spec 3 "resolve result"). */
export interface ResolveResult {
  /** What to hand the player: the local URL (p2p) or the operator URL verbatim (cdn). */
  url: string
  source: 'p2p' | 'cdn'
  localUrl?: string
  port?: number
  /** Feed drive key (public), or null for redirect channels. */
  feedKey: string | null
  /** Seek and pause UI must key off this, never off the URL shape. */
  type: 'live' | 'vod'
  /** Vod runtime (null when the catalog lacks it). */
  durationSec?: number | null
}

/** source(): the engine-confirmed active stream. */
export interface ActiveSource { streamId: string | null; source: 'p2p' | 'cdn'; url: string; type: 'live' | 'vod' }

/** The tune ladder's states (one definition, shared with the engine IPC). */
export type { TuneState } from '@arus/engine-protocol'
export interface StatusEvent { state: TuneState; streamId: string | null }
export interface FeedChangedEvent { streamId: string; feedKey: string; url: string }
export type ZapSuspendReason = 'metered' | 'stall' | 'thin'
export type ZapPrefetchEvent = { enabled: boolean } | { state: 'suspended' | 'resumed'; reason: ZapSuspendReason }
export interface UploadPolicyEvent { policy: UploadPolicy; rejoined: number }
export interface UploadPolicyResult { policy: UploadPolicy; changed: boolean; rejoined: number }

/** Events (spec 3 "Events"). The emitter never throws on an unhandled 'error'. */
export interface PlayerEvents {
  ready: []
  streams: [DisplayItem[]]
  status: [StatusEvent]
  peers: [number]
  'feed-changed': [FeedChangedEvent]
  'zap-prefetch': [ZapPrefetchEvent]
  'upload-policy': [UploadPolicyEvent]
  recovered: [Error]
  error: [Error]
  [event: string]: unknown[]
}

/** The session of the last login (the token is a bearer credential for reports, not a stream key). */
export interface SessionInfo { username: string; deviceId: string; token: string; expiresAt: number; tokenVersion: number; deviceCount: number }

/** A problem report (spec 1 "Problem report"). */
export interface ReportInput {
  /** Stream id being watched. */
  channel: string
  category: 'no-audio' | 'black-screen' | 'visual-artifacts' | 'buffering' | 'wrong-content' | 'login' | 'other'
  /** At most 300 characters, control characters stripped. Shipped apps send null. */
  text?: string | null
  appVersion?: string
  platform?: string
}

/**
 * sent / collapsed: the panel took it. unsupported: the panel answers 'unknown method' (show
 * that the service does not accept reports). cooldown / locked: already reported (10 minutes per
 * channel and category client-side, or the panel's throttle); `retryAfter` in seconds.
 */
export interface ReportResult { status: 'sent' | 'collapsed' | 'unsupported' | 'cooldown' | 'locked'; retryAfter?: number }

/** Diagnostics (Arus): what the engine is connected to and how many bytes moved per peer. */
export interface PlayerDiagnostics {
  /** This engine's swarm public key (hex). */
  publicKey: string | null
  port: number | null
  panelLinked: boolean
  connections: number
  uploadPolicy: UploadPolicy
  /** Feed topics joined (the active feed and zap neighbors). */
  feedTopics: number
  /** Topics joined by prewarm and not (yet) opened as a feed. */
  prewarmed: number
  feed: null | {
    streamId: string | null
    feedKey: string
    peers: number
    /** Bytes of feed blocks exchanged with each peer (hex public key). */
    bytesByPeer: Record<string, { downloaded: number; uploaded: number; remote: string | null }>
  }
  zap: { enabled: boolean; suspended: ZapSuspendReason | null; warm: string[] }
  /** The last successful login, phase by phase (docs/benchmarks.md "Login phases"), or null. */
  lastLogin: null | { totalMs: number; phases: Phase[] }
}

/** login() options. */
export interface LoginOptions {
  /** How long to wait for the panel link before 'not connected to panel'. Default 10000 ms. */
  linkWaitMs?: number
  /** Ends the wait for the panel link ('not connected to panel'); a login past it runs on. */
  signal?: AbortSignal
}

/** The viewer engine (spec 3 "Engine methods"). */
export interface Player {
  /** Joins the panel topic and replicates the catalog; emits 'ready'. */
  connect(panelPubKey?: string): Promise<void>
  /**
   * OPRF login; returns the display list. Called while the panel link still dials, it waits for
   * the link up to `opts.linkWaitMs` (10 s), then throws 'not connected to panel' (see
   * {@link loginWithRetry}).
   */
  login(username: string, password: string, opts?: LoginOptions): Promise<DisplayItem[]>
  /** The last display list (also redelivered via 'streams'). */
  listStreams(): DisplayItem[]
  /**
   * The operator's external VOD provider settings as read at the last login (the panel's
   * svcmeta/vod record), or null until the operator configures them. A change reaches the
   * app at its next login.
   */
  vodProvider(): VodProvider | null
  /**
   * The visible category rails of the entitled streams, in the operator's order (renamed,
   * merged and hidden categories applied). Follows presentation edits live; each edit
   * re-emits 'streams'.
   */
  categories(): CategoryRail[]
  /** Makes an entitled stream playable (spec 3 "resolve contract"). */
  resolve(streamId: string): Promise<ResolveResult>
  /** The active stream, or null. */
  source(): ActiveSource | null
  /** Direct play from raw keys without login (diagnostics); returns the local port. */
  serveFeed(feedKey: string, encKey: string): Promise<number>
  /** Catalog art path to local URL; absolute http(s) URLs pass through. */
  assetUrl(path: string): string
  /** Warms entitled feeds' topics now (`count` defaults to the prewarm option, or all); resolves with how many. */
  prewarm(count?: number): Promise<number>
  setZapPrefetch(value: boolean | ZapPrefetchInit): void
  setNetworkProfile(profile: { expensive: boolean }): void
  setUploadPolicy(policy: UploadPolicy): Promise<UploadPolicyResult>
  /** Tears down the active feed's peers and dials fresh. */
  reconnectActiveFeed(): Promise<void>
  /** Files a pseudonymous problem report (10-minute cooldown per channel and category). */
  report(input: ReportInput): Promise<ReportResult>
  /** The session of the last login, or null. */
  session(): SessionInfo | null
  /** Online check that this device is still enrolled with the current tokenVersion. */
  sessionLive(): Promise<boolean>
  diagnostics(): PlayerDiagnostics
  /** Local HTTP port (after connect, serveFeed or resolve), or null. */
  readonly port: number | null
  /** Full teardown; idempotent. */
  stop(): Promise<void>
  on<K extends keyof PlayerEvents>(event: K, fn: (...args: PlayerEvents[K]) => void): Player
  once<K extends keyof PlayerEvents>(event: K, fn: (...args: PlayerEvents[K]) => void): Player
  off<K extends keyof PlayerEvents>(event: K, fn: (...args: PlayerEvents[K]) => void): Player
}

/**
 * Creates a viewer engine. Options are validated at once (SDK_INVALID_OPTIONS names every bad
 * one); nothing touches the network or the disk until connect(), serveFeed() or login().
 */
export function createPlayer (init?: PlayerInit, components: PlayerComponents = {}): Player {
  return new PlayerImpl(init, components)
}

export { createEngine } from './engine/engine.js'
export type { Engine, EngineInit } from './engine/engine.js'
export { ENGINE_COMMANDS, ENGINE_MESSAGE_TYPES, ENGINE_PROTOCOL_VERSION, EngineCommand, EngineMessageSchema, LineDecoder, MAX_LINE_BYTES, encodeLine } from '@arus/engine-protocol'
export { INITIAL_HOST_STATE, applyEngineMessage } from '@arus/engine-protocol'
export type { DroppedLine, EngineCommandName, EngineMessage, EngineMessageType, EnginePrefs, EngineState, HostState, StreamItem } from '@arus/engine-protocol'

import { z } from 'zod'
import { SERVICE_MESSAGE_TYPES, ServiceCommands, ServiceMessageSchemas, type ServiceMessage } from './services.js'

export { REPORT_CATEGORIES, REPORT_STATUSES } from './services.js'
export type { EpgEntry, ReportCategory, ReportStatus, ServiceMessage, VodProvider } from './services.js'

// Kept free of the engine: hosts (the React Native binding) import this package alone.
const HexKey = z.string().regex(/^[0-9a-fA-F]{64}$/, 'expected 64 hex characters (32 bytes)')
const UploadPolicySchema = z.enum(['reseed', 'client-only'])
/** The engine validates the keys itself (createPlayer's zapPrefetch schema). */
const ZapPrefetchObject = z.record(z.string(), z.union([z.number(), z.boolean()]))

/** The tune ladder's states (the engine's `status` events). */
export type TuneState = 'feed:open' | 'feed:ready' | 'feed:retune' | 'feed:reconnect' | 'feed:rescan'

/** One entitled stream as the engine lists it (the SDK's DisplayItem; never a key). */
export interface StreamItem {
  id: string
  title: string
  type: 'live' | 'vod'
  [field: string]: unknown
}

/**
 * The engine IPC protocol (docs/engine-ipc.md): line-delimited JSON between a host (the React
 * Native binding, the native Android SDK, a test) and the viewer engine running in a worklet.
 * One UTF-8 JSON object per line, `\n`-terminated, both ways. Commands carry `cmd`, messages
 * carry `type`. Bump the version on any change a host must know about.
 *
 * 2: the commands report, epg, vodProvider, setUploadPolicy, prewarm, sessionLive and their
 * messages, and the 'upload-policy' and 'recovered' events (./services.ts). An engine takes a
 * `start` of any version up to its own, so a version-1 host keeps working unchanged.
 */
export const ENGINE_PROTOCOL_VERSION = 2

/** Longest line either side accepts (bytes, newline excluded); a longer one is dropped. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024

const Id = z.union([z.string().max(64), z.number().int()]).optional()
const Name = z.string().min(1).max(256)
const Secret = z.string().min(1).max(1024)
const StreamId = z.string().min(1).max(256)

/** start options (spec 3 "Cross-platform mobile binding": the worklet owns storeDir). */
export const StartCommand = z.strictObject({
  cmd: z.literal('start'),
  id: Id,
  v: z.number().int().min(1).optional(),
  panelPubKey: HexKey,
  hybrid: z.unknown().optional(),
  prewarm: z.union([z.boolean(), z.number().int().min(0).max(10_000)]).optional(),
  tune: z.record(z.string(), z.number()).optional(),
  zapPrefetch: z.union([z.boolean(), ZapPrefetchObject]).optional(),
  swarm: z.strictObject({
    maxPeers: z.number().int().min(1).max(10_000).optional(),
    bootstrap: z.array(z.strictObject({ host: z.string().min(1).max(255), port: z.number().int().min(1).max(65535) })).max(64).optional()
  }).optional(),
  uploadPolicy: UploadPolicySchema.optional(),
  debug: z.boolean().optional()
})

/** Every command a host may send, one schema each. */
export const EngineCommand = z.discriminatedUnion('cmd', [
  StartCommand,
  z.strictObject({ cmd: z.literal('login'), id: Id, username: Name, password: Secret }),
  z.strictObject({ cmd: z.literal('play'), id: Id, streamId: StreamId }),
  z.strictObject({ cmd: z.literal('playRaw'), id: Id, feedKey: HexKey, encKey: HexKey }),
  z.strictObject({ cmd: z.literal('reconnect'), id: Id }),
  z.strictObject({ cmd: z.literal('setZapPrefetch'), id: Id, value: z.union([z.boolean(), ZapPrefetchObject]) }),
  z.strictObject({ cmd: z.literal('setNetworkProfile'), id: Id, expensive: z.boolean(), cellular: z.boolean().optional() }),
  z.strictObject({ cmd: z.literal('requestPrefs'), id: Id }),
  z.strictObject({ cmd: z.literal('saveCredentials'), id: Id, username: Name, password: Secret }),
  z.strictObject({ cmd: z.literal('clearCredentials'), id: Id }),
  z.strictObject({ cmd: z.literal('toggleFavorite'), id: Id, streamId: StreamId }),
  z.strictObject({ cmd: z.literal('stop'), id: Id }),
  ...ServiceCommands
])
export type EngineCommand = z.infer<typeof EngineCommand>
export type EngineCommandName = EngineCommand['cmd']

/** The command names, for hosts and docs. */
export const ENGINE_COMMANDS = EngineCommand.options.map((o) => o.shape.cmd.value) as readonly EngineCommandName[]

/** Saved credentials and favorites (the worklet's prefs store). */
export interface EnginePrefs { creds: { username: string; password: string } | null; favorites: string[] }

/** Tune states plus the engine's own: 'ready' (connected), 'logged-in', 'playing', 'peers'. */
export type EngineState = TuneState | 'ready' | 'logged-in' | 'playing' | 'peers'

/** Every message the engine sends (`type`). Hosts ignore types they do not know. */
export type EngineMessage =
  | { type: 'port'; v: number; port: number }
  | { type: 'streams'; streams: StreamItem[] }
  | { type: 'status'; state: EngineState; streamId: string | null; url?: string; source?: 'p2p' | 'cdn'; mediaType?: 'live' | 'vod'; feedKey?: string | null; peers?: number }
  | { type: 'error'; code: string; message: string; cmd?: string; id?: string | number; streamId?: string | null }
  | { type: 'login-error'; code: string; message: string; retryable: boolean; retryAfter?: number; id?: string | number }
  | { type: 'feed-changed'; streamId: string; feedKey: string; url: string }
  | { type: 'zap-prefetch'; enabled?: boolean; state?: 'suspended' | 'resumed'; reason?: string }
  | { type: 'prefs'; creds: EnginePrefs['creds']; favorites: string[] }
  | ServiceMessage
  // Hybrid mode only (a legacy CDN failover harness this engine does not build): never sent.
  | { type: 'fallback' }
  | { type: 'source-changed' }

const MsgId = z.union([z.string(), z.number()]).optional()
const Url = z.string().max(2048)

/**
 * The messages as a schema (a host validates each message it knows; unknown types are ignored).
 * Non-strict objects: a later engine may add fields, and an older host keeps working.
 */
export const EngineMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('port'), v: z.number().int().min(1), port: z.number().int().min(0).max(65535) }),
  z.object({ type: z.literal('streams'), streams: z.array(z.object({ id: z.string(), title: z.string(), type: z.enum(['live', 'vod']) }).loose()) }),
  z.object({
    type: z.literal('status'),
    state: z.string().max(64),
    streamId: z.string().nullable(),
    url: Url.optional(),
    source: z.enum(['p2p', 'cdn']).optional(),
    mediaType: z.enum(['live', 'vod']).optional(),
    feedKey: z.string().nullable().optional(),
    peers: z.number().int().min(0).optional()
  }),
  z.object({ type: z.literal('error'), code: z.string().max(64), message: z.string().max(4096), cmd: z.string().optional(), id: MsgId, streamId: z.string().nullable().optional() }),
  z.object({ type: z.literal('login-error'), code: z.string().max(64), message: z.string().max(4096), retryable: z.boolean(), retryAfter: z.number().optional(), id: MsgId }),
  z.object({ type: z.literal('feed-changed'), streamId: z.string(), feedKey: z.string(), url: Url }),
  z.object({ type: z.literal('zap-prefetch'), enabled: z.boolean().optional(), state: z.enum(['suspended', 'resumed']).optional(), reason: z.string().optional() }),
  z.object({ type: z.literal('prefs'), creds: z.object({ username: z.string(), password: z.string() }).nullable(), favorites: z.array(z.string()) }),
  z.object({ type: z.literal('fallback') }),
  z.object({ type: z.literal('source-changed') }),
  ...ServiceMessageSchemas
])

export type EngineMessageType = EngineMessage['type']
export const ENGINE_MESSAGE_TYPES: readonly EngineMessageType[] = ['port', 'streams', 'status', 'error', 'login-error', 'feed-changed', 'zap-prefetch', 'prefs', 'fallback', 'source-changed', ...SERVICE_MESSAGE_TYPES]

/** One message as a line (with its newline). */
export function encodeLine (value: unknown): string {
  return JSON.stringify(value) + '\n'
}

/** Why a line was dropped (never its content: a line may carry a password). */
export interface DroppedLine { reason: 'too-long' | 'not-json' | 'not-an-object'; bytes: number }

/**
 * Splits a byte or text stream into JSON objects, one per line. A line over `maxBytes` is
 * skipped up to its newline, a line that is not a JSON object is skipped; each drop is
 * reported to `onDrop` and the decoder carries on.
 */
export class LineDecoder {
  private parts: Uint8Array[] = []
  private size = 0
  private skipping = false
  private readonly decoder = new TextDecoder()

  constructor (
    private readonly onValue: (value: Record<string, unknown>) => void,
    private readonly onDrop: (drop: DroppedLine) => void,
    private readonly maxBytes = MAX_LINE_BYTES
  ) {}

  push (chunk: Uint8Array | string): void {
    let bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk
    for (;;) {
      const nl = bytes.indexOf(10)
      if (nl === -1) { this.keep(bytes); return }
      this.keep(bytes.subarray(0, nl))
      this.finishLine()
      bytes = bytes.subarray(nl + 1)
    }
  }

  private keep (bytes: Uint8Array): void {
    if (bytes.byteLength === 0) return
    if (!this.skipping && this.size + bytes.byteLength > this.maxBytes) {
      this.skipping = true
      this.parts = []
    }
    this.size += bytes.byteLength
    if (!this.skipping) this.parts.push(bytes)
  }

  private finishLine (): void {
    const size = this.size
    const skipped = this.skipping
    const parts = this.parts
    this.parts = []
    this.size = 0
    this.skipping = false
    if (skipped) { this.onDrop({ reason: 'too-long', bytes: size }); return }
    if (size === 0) return
    const line = new Uint8Array(size)
    let at = 0
    for (const p of parts) { line.set(p, at); at += p.byteLength }
    let value: unknown
    try {
      value = JSON.parse(this.decoder.decode(line))
    } catch {
      this.onDrop({ reason: 'not-json', bytes: size })
      return
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) { this.onDrop({ reason: 'not-an-object', bytes: size }); return }
    this.onValue(value as Record<string, unknown>)
  }
}

/** What a host caches from the messages (spec 3: streams, port, url, source, activeStreamId, creds, favorites). */
export interface HostState {
  port: number | null
  streams: string[]
  url: string | null
  source: 'p2p' | 'cdn' | null
  mediaType: 'live' | 'vod' | null
  /** The engine-confirmed playing channel (a 'playing' status), not the one last asked for. */
  activeStreamId: string | null
  feedKey: string | null
  creds: EnginePrefs['creds']
  favorites: string[]
}

export const INITIAL_HOST_STATE: HostState = { port: null, streams: [], url: null, source: null, mediaType: null, activeStreamId: null, feedKey: null, creds: null, favorites: [] }

/**
 * The reference reduction of one message into a host's cached state: every binding (React
 * Native, Kotlin) must reach the same state from the same transcript (the fixtures in
 * `packages/sdk/ipc-fixtures` hold both).
 */
export function applyEngineMessage (state: HostState, msg: { type: string } & Record<string, any>): HostState {
  switch (msg.type) {
    case 'port': return { ...state, port: msg.port }
    case 'streams': return { ...state, streams: msg.streams.map((s: { id: string }) => s.id) }
    case 'prefs': return { ...state, creds: msg.creds === null ? null : { ...msg.creds }, favorites: [...msg.favorites] }
    case 'status':
      if (msg.state !== 'playing') return state
      return { ...state, activeStreamId: msg.streamId, url: msg.url ?? state.url, source: msg.source ?? state.source, mediaType: msg.mediaType ?? state.mediaType, feedKey: msg.feedKey ?? null }
    case 'feed-changed':
      return msg.streamId === state.activeStreamId ? { ...state, feedKey: msg.feedKey, url: msg.url } : state
    default: return state
  }
}

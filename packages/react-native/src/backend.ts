import b4a from 'b4a'
import { Platform } from 'react-native'
import {
  ENGINE_PROTOCOL_VERSION, EngineMessageSchema, ENGINE_MESSAGE_TYPES, INITIAL_HOST_STATE, LineDecoder, MAX_LINE_BYTES,
  applyEngineMessage, encodeLine, type EngineMessage, type EnginePrefs, type HostState, type ReportCategory, type StreamItem
} from '@arus/engine-protocol'

/** Spec 3 "Versioning" 1: the engine needs API level 29 and a 64-bit OS. */
export const MIN_ENGINE_API_LEVEL = 29

/** What the engine host (react-native-bare-kit's Worklet) offers the backend. */
export interface WorkletLike {
  readonly IPC: { on(event: 'data', fn: (data: Uint8Array) => void): unknown; write(data: Uint8Array): unknown }
  start(filename: string, source: Uint8Array, args?: string[]): void
  terminate(): void
}

/**
 * The device as isSupported() judges it ({@link currentDevice} builds it). `is64Bit` null: not
 * known (react-native does not report the ABIs), which isSupported() treats as unsupported.
 */
export interface DeviceInfo { os: string; apiLevel: number | null; is64Bit: boolean | null }

/**
 * start() options (spec 3): the worklet owns its store; `dataDir` is where (default: its home).
 * No `hybrid`: spec 3 calls that failover engine "not a product path", and this engine refuses it.
 */
export interface StartOptions {
  panelPubKey: string
  prewarm?: boolean | number
  tune?: { timeoutMs?: number; relookupMinMs?: number; relookupMaxMs?: number; rescanMs?: number }
  zapPrefetch?: boolean | Record<string, number | boolean>
  swarm?: { maxPeers?: number; bootstrap?: Array<{ host: string; port: number }> }
  uploadPolicy?: 'reseed' | 'client-only'
  debug?: boolean
  /** The worklet's own directory; the first start() fixes it (a corrected start() after a refusal keeps it). */
  dataDir?: string
  /** A PEM file the engine's https fetches (the programme guide) trust instead of the built-in roots (`--ca`). */
  caFile?: string
}

/** A problem report (spec 1 "Problem report"): the stream watched and what is wrong. */
export interface ReportInput {
  channel: string
  category: ReportCategory
  /** At most 300 characters are sent (control characters stripped); shipped apps send null. */
  text?: string | null
  appVersion?: string
  platform?: string
}

export interface BackendInit {
  /** Makes the engine host. Default: `new Worklet()` of react-native-bare-kit, imported on first start() only. */
  createWorklet?: () => Promise<WorkletLike> | WorkletLike
  /** The device for isSupported(). Default: `currentDevice(abis)`. */
  device?: DeviceInfo
  /**
   * The device's ABI list (Android's `Build.SUPPORTED_ABIS`, e.g. react-native-device-info's
   * `supportedAbisSync()`), for the default `device`. React Native does not report it: without
   * it (or `device`) an Android device's bitness is unknown and the backend stays inert.
   */
  abis?: readonly string[]
  /** Warnings (dropped lines, listener errors, a missing ABI list). Default console.warn. Never a line's content. */
  warn?: (message: string) => void
}

export type MessageListener = (message: EngineMessage) => void

/**
 * This device: OS and API level from react-native's `Platform`, bitness from `abis`, the ABI
 * list the host reads (react-native's `Platform.constants` has no ABI list; Android's
 * `Build.SUPPORTED_ABIS`, e.g. react-native-device-info's `supportedAbisSync()`). 64-bit when
 * the list holds a 64-bit ABI (arm64-v8a, x86_64, ...); without a list `is64Bit` is null
 * (unknown) on Android. iOS runs 64-bit only.
 */
export function currentDevice (abis?: readonly string[]): DeviceInfo {
  const version = typeof Platform.Version === 'number' ? Platform.Version : Number.parseInt(String(Platform.Version), 10)
  const is64Bit = Platform.OS === 'ios' ? true : Array.isArray(abis) ? abis.some((abi) => typeof abi === 'string' && abi.includes('64')) : null
  return { os: Platform.OS, apiLevel: Number.isFinite(version) ? version : null, is64Bit }
}

async function bareKitWorklet (): Promise<WorkletLike> {
  // Lazy: below API 29 this module (and the native engine with it) is never loaded.
  const { Worklet } = await import('react-native-bare-kit')
  return new Worklet()
}

const KNOWN = new Set<string>(ENGINE_MESSAGE_TYPES)

/**
 * The viewer engine in a Bare worklet, driven over the engine IPC (docs/engine-ipc.md), with
 * the state a UI needs cached from its messages. On an unsupported device (isSupported() false)
 * the whole backend is inert: start() and every method do nothing, no listener ever fires, and
 * react-native-bare-kit is never imported.
 */
export class ArusBackend {
  /**
   * Android API level ≥ 29 on a known 64-bit OS, or iOS. An Android device whose bitness is
   * unknown (`currentDevice()` without an ABI list) is unsupported: a 32-bit TV box at API 29+
   * must not start the engine, and react-native cannot tell it apart.
   */
  static isSupported (device: DeviceInfo = currentDevice()): boolean {
    if (device.os === 'ios') return true
    if (device.os !== 'android') return false
    return device.is64Bit === true && device.apiLevel !== null && device.apiLevel >= MIN_ENGINE_API_LEVEL
  }

  private state: HostState = INITIAL_HOST_STATE
  private items: StreamItem[] = []
  private readonly listeners = new Set<MessageListener>()
  private worklet: WorkletLike | null = null
  private starting: Promise<void> | null = null
  /** The engine refused the last 'start' (an `error` with cmd 'start'): the next start() sends a corrected one. */
  private startRefused = false
  private readonly inert: boolean
  private readonly warn: (message: string) => void
  private readonly decoder: LineDecoder

  constructor (private readonly init: BackendInit = {}) {
    const device = init.device ?? currentDevice(init.abis)
    this.inert = !ArusBackend.isSupported(device)
    this.warn = init.warn ?? ((m) => console.warn(m))
    // Only where the missing list is what keeps the engine off (below API 29 it is off anyway).
    if (device.os === 'android' && device.is64Bit === null && (device.apiLevel ?? 0) >= MIN_ENGINE_API_LEVEL) {
      this.warn('arus: the engine stays off: pass BackendInit.abis (the device\'s ABI list) or device; react-native does not report whether the OS is 64-bit')
    }
    this.decoder = new LineDecoder((value) => this.receive(value), (drop) => this.warn(`arus: dropped an engine line (${drop.reason}, ${drop.bytes} bytes)`))
  }

  /**
   * Starts the engine from its bundle (base64 text or bytes of `arus-engine.bundle`). Idempotent,
   * except after the engine refused the options (an `error` message with `cmd: 'start'`): then
   * the same worklet takes these (corrected) options.
   */
  start (bundle: string | Uint8Array, opts: StartOptions): Promise<void> {
    if (this.inert) return Promise.resolve()
    if (this.starting !== null) {
      return this.starting.then(() => {
        if (!this.startRefused) return
        this.startRefused = false
        this.sendStart(opts)
      })
    }
    this.starting = (async () => {
      const source = typeof bundle === 'string' ? b4a.from(bundle, 'base64') : bundle
      const worklet = await (this.init.createWorklet ?? bareKitWorklet)()
      this.worklet = worklet
      worklet.IPC.on('data', (data) => this.decoder.push(data))
      const args = [...(opts.dataDir === undefined ? [] : ['--data', opts.dataDir]), ...(opts.caFile === undefined ? [] : ['--ca', opts.caFile])]
      worklet.start('/arus-engine.bundle', source, args)
      this.sendStart(opts)
    })()
    return this.starting
  }

  private sendStart (opts: StartOptions): void {
    const { dataDir: _dataDir, caFile: _caFile, ...options } = opts
    this.send({ cmd: 'start', v: ENGINE_PROTOCOL_VERSION, ...options })
  }

  login (username: string, password: string): void { this.send({ cmd: 'login', username, password }) }
  play (streamId: string): void { this.send({ cmd: 'play', streamId }) }
  playRaw (feedKey: string, encKey: string): void { this.send({ cmd: 'playRaw', feedKey, encKey }) }
  reconnect (): void { this.send({ cmd: 'reconnect' }) }
  setZapPrefetch (value: boolean | Record<string, number | boolean>): void { this.send({ cmd: 'setZapPrefetch', value }) }
  setNetworkProfile (expensive: boolean, cellular?: boolean): void {
    this.send({ cmd: 'setNetworkProfile', expensive, ...(cellular === undefined ? {} : { cellular }) })
  }

  requestPrefs (): void { this.send({ cmd: 'requestPrefs' }) }
  saveCredentials (username: string, password: string): void { this.send({ cmd: 'saveCredentials', username, password }) }
  clearCredentials (): void { this.send({ cmd: 'clearCredentials' }) }
  toggleFavorite (streamId: string): void { this.send({ cmd: 'toggleFavorite', streamId }) }
  isFavorite (streamId: string): boolean { return this.state.favorites.includes(streamId) }

  // Protocol 2 (docs/engine-ipc.md): each answers with the message of the same concern.
  /** Files a problem report: a `report` message (sent, collapsed, unsupported, cooldown, locked). */
  report (input: ReportInput): void { this.send({ cmd: 'report', ...input }) }
  /** The guide of a stream (its `epgUrl`/`epgId`, spec 3 useEpg): an `epg` message with now and next. */
  epg (epgUrl: string, epgId: string): void { this.send({ cmd: 'epg', epgUrl, epgId }) }
  /** The operator's VOD provider settings as of the last login: a `vod-provider` message. */
  vodProvider (): void { this.send({ cmd: 'vodProvider' }) }
  /** Switches re-seeding: an `upload-policy` message. */
  setUploadPolicy (policy: 'reseed' | 'client-only'): void { this.send({ cmd: 'setUploadPolicy', policy }) }
  /** Warms entitled feeds' topics (`count`, default the start option or all): a `prewarm` message. */
  prewarm (count?: number): void { this.send({ cmd: 'prewarm', ...(count === undefined ? {} : { count }) }) }
  /** Online check that this device is still enrolled: a `session-live` message. */
  sessionLive (): void { this.send({ cmd: 'sessionLive' }) }

  /** Every engine message, after the cached state took it in; returns the unsubscribe. */
  onMessage (fn: MessageListener): () => void {
    if (this.inert) return () => {}
    this.listeners.add(fn)
    return () => { this.listeners.delete(fn) }
  }

  /** Stops the engine and terminates the worklet. */
  stop (): void {
    if (this.worklet === null) return
    this.send({ cmd: 'stop' })
    this.worklet.terminate()
    this.worklet = null
  }

  get streams (): StreamItem[] { return this.items }
  get port (): number | null { return this.state.port }
  get url (): string | null { return this.state.url }
  get source (): 'p2p' | 'cdn' | null { return this.state.source }
  get mediaType (): 'live' | 'vod' | null { return this.state.mediaType }
  /** The channel the engine confirmed it plays (not the one last asked for). */
  get activeStreamId (): string | null { return this.state.activeStreamId }
  get creds (): EnginePrefs['creds'] { return this.state.creds }
  get favorites (): string[] { return this.state.favorites }
  /** The whole cached state (the shape the transcript fixtures record). */
  snapshot (): HostState { return { ...this.state, streams: [...this.state.streams], favorites: [...this.state.favorites] } }

  private send (command: Record<string, unknown>): void {
    if (this.inert || this.worklet === null) return
    const line = encodeLine(command)
    if (line.length > MAX_LINE_BYTES) { this.warn(`arus: dropped a '${String(command.cmd)}' command over ${MAX_LINE_BYTES} bytes`); return }
    this.worklet.IPC.write(b4a.from(line, 'utf8'))
  }

  private receive (value: Record<string, unknown>): void {
    if (typeof value.type !== 'string' || !KNOWN.has(value.type)) return // a newer engine's message: ignored
    const parsed = EngineMessageSchema.safeParse(value)
    if (!parsed.success) { this.warn(`arus: dropped an invalid '${value.type}' message`); return }
    const msg = parsed.data as EngineMessage
    if (msg.type === 'error' && msg.cmd === 'start') this.startRefused = true
    this.state = applyEngineMessage(this.state, msg)
    if (msg.type === 'streams') this.items = msg.streams
    for (const fn of [...this.listeners]) {
      try {
        fn(msg)
      } catch (err) {
        this.warn(`arus: a message listener threw: ${err instanceof Error ? err.message : String(err)}`)
      }
    }
  }
}

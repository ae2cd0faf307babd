import { createEpgService, type FetchLike } from '../epg.js'
import { SdkError } from '../errors.js'
import { createPlayer, type Player, type PlayerInit } from '../index.js'
import type { PlayerRuntime } from '../runtime.js'
import { joinPath } from '../runtime.js'
import { loginWithRetry } from '../retry.js'
import { PrefsStore } from './prefs.js'
import { ENGINE_PROTOCOL_VERSION, EngineCommand, LineDecoder, MAX_LINE_BYTES, encodeLine, type DroppedLine, type EngineMessage, type StreamItem } from '@arus/engine-protocol'

export interface EngineInit {
  runtime: PlayerRuntime
  /** The worklet's own directory: the replica store (`store/`) and `prefs.json` live here. */
  dataDir: string
  /** Writes one line to the host (with its newline). */
  write(line: string): void
  /** A warning for the host's log (never a line's content). */
  warn(message: string): void
  /** Called once after a `stop` command tore the engine down. */
  onStopped?(): void
  /** The https client of the programme guide (`epg`). Default: the runtime's global fetch. */
  fetch?: FetchLike
  /** Test hook: createPlayer options merged over what `start` asks for. */
  playerOverrides?: Partial<PlayerInit>
}

export interface Engine {
  /** Feed bytes or text from the host; complete lines are handled in order. */
  push(chunk: Uint8Array | string): void
  /** Tears the player down (also what `stop` does). */
  close(): Promise<void>
}

type Reply = { id?: string | number | undefined }

/**
 * The viewer engine behind the IPC protocol (docs/engine-ipc.md): commands in, messages out,
 * over an injected runtime. The Bare worklet (`packages/sdk/worklet`) wires it to its IPC
 * stream; tests run the same code under Node.
 */
export function createEngine (init: EngineInit): Engine {
  const prefs = new PrefsStore(init.runtime.fs, init.dataDir)
  // One guide cache per engine (spec 3 "EPG data": per URL, ETag revalidation).
  const epg = createEpgService(init.fetch === undefined ? {} : { fetchImpl: init.fetch })
  let player: Player | null = null
  let stopping: Promise<void> | null = null
  let chain: Promise<void> = Promise.resolve()

  const send = (msg: EngineMessage): void => {
    const line = encodeLine(msg)
    if (line.length > MAX_LINE_BYTES) { init.warn(`engine: dropped an outgoing ${msg.type} message of ${line.length} bytes (over ${MAX_LINE_BYTES})`); return }
    init.write(line)
  }
  const fail = (err: unknown, cmd: string, r: Reply, extra: { streamId?: string | null } = {}): void => {
    const e = err instanceof SdkError ? err : SdkError.engine('SDK_ENGINE_FAILED', err instanceof Error ? err.message : String(err))
    send({ type: 'error', code: e.code, message: e.message, cmd, ...(r.id !== undefined ? { id: r.id } : {}), ...extra })
  }
  // A drop is answered in its turn, after the commands that came before it.
  const onDrop = (drop: DroppedLine): void => {
    init.warn(`engine: dropped a command line (${drop.reason}, ${drop.bytes} bytes)`)
    chain = chain.then(() => send({ type: 'error', code: 'SDK_ENGINE_BAD_LINE', message: `a command line was dropped: ${drop.reason}` }))
  }
  // Ends a login still retrying (spec 3 retry pattern) ahead of a stop in the queue.
  const stopAsked = new AbortController()
  const decoder = new LineDecoder((value) => {
    if (value.cmd === 'stop') stopAsked.abort()
    // Commands run one at a time, in arrival order.
    chain = chain.then(() => handle(value)).catch((err) => init.warn(`engine: ${String(err)}`))
  }, onDrop)

  const started = (cmd: string, r: Reply): Player | null => {
    if (player !== null && stopping === null) return player
    fail(SdkError.engine('SDK_ENGINE_NOT_STARTED', `'${cmd}' needs 'start' first`), cmd, r)
    return null
  }

  async function start (c: Extract<EngineCommand, { cmd: 'start' }>): Promise<void> {
    if (player !== null) { fail(SdkError.engine('SDK_ENGINE_PROTOCOL', 'the engine is already started'), 'start', c); return }
    if (c.v !== undefined && c.v > ENGINE_PROTOCOL_VERSION) {
      fail(SdkError.engine('SDK_ENGINE_PROTOCOL', `the host speaks protocol ${c.v}, this engine ${ENGINE_PROTOCOL_VERSION}`), 'start', c)
      return
    }
    const { cmd: _cmd, id: _id, v: _v, debug: _debug, ...opts } = c
    let p: Player
    try {
      p = createPlayer({ ...(opts as PlayerInit), storeDir: joinPath(init.dataDir, 'store'), ...init.playerOverrides }, { runtime: init.runtime })
    } catch (err) {
      fail(err, 'start', c)
      return
    }
    player = p
    p.on('streams', (streams) => send({ type: 'streams', streams: streams as unknown as StreamItem[] }))
    p.on('status', (s) => send({ type: 'status', state: s.state, streamId: s.streamId }))
    p.on('peers', (n) => send({ type: 'status', state: 'peers', streamId: p.source()?.streamId ?? null, peers: n }))
    p.on('feed-changed', (e) => send({ type: 'feed-changed', streamId: e.streamId, feedKey: e.feedKey, url: e.url }))
    p.on('zap-prefetch', (e) => send({ type: 'zap-prefetch', ...e }))
    p.on('upload-policy', (e) => send({ type: 'upload-policy', policy: e.policy, rejoined: e.rejoined }))
    p.on('recovered', (err) => send({ type: 'recovered', message: err.message, ...(err instanceof SdkError ? { code: err.code } : {}) }))
    p.on('error', (err) => fail(err, 'play', {}, { streamId: p.source()?.streamId ?? null }))
    try {
      await p.connect()
    } catch (err) {
      // Refused: the engine stays unstarted and takes a corrected 'start'.
      player = null
      await p.stop().catch(() => {})
      fail(err, 'start', c)
      return
    }
    send({ type: 'port', v: ENGINE_PROTOCOL_VERSION, port: p.port ?? 0 })
    send({ type: 'status', state: 'ready', streamId: null })
  }

  async function login (p: Player, c: Extract<EngineCommand, { cmd: 'login' }>): Promise<void> {
    try {
      // Bounded by time too (30 s): a wrong panel key reaches the host as a login-error in about 30 s.
      await loginWithRetry(p, c.username, c.password, { signal: stopAsked.signal })
      send({ type: 'status', state: 'logged-in', streamId: null })
    } catch (err) {
      const e = err instanceof SdkError ? err : null
      const code = e?.code ?? 'SDK_LOGIN_FAILED'
      const retryable = code === 'SDK_NOT_CONNECTED' || code === 'SDK_LOGIN_LOCKED' || code === 'SDK_CATALOG_UNAVAILABLE'
      send({ type: 'login-error', code, message: e?.message ?? String(err), retryable, ...(e?.retryAfter !== undefined ? { retryAfter: e.retryAfter } : {}), ...(c.id !== undefined ? { id: c.id } : {}) })
    }
  }

  function playing (p: Player, streamId: string | null, feedKey: string | null): void {
    const s = p.source()
    if (s === null) return
    send({ type: 'status', state: 'playing', streamId, url: s.url, source: s.source, mediaType: s.type, feedKey })
  }

  async function handle (value: Record<string, unknown>): Promise<void> {
    const parsed = EngineCommand.safeParse(value)
    if (!parsed.success) {
      const cmd = typeof value.cmd === 'string' ? value.cmd.slice(0, 64) : '(none)'
      const known = EngineCommand.options.some((o) => o.shape.cmd.value === cmd)
      // Name the fields at fault, never their values (a password may be among them).
      const names = parsed.error.issues.flatMap((i) => i.code === 'unrecognized_keys' ? i.keys.map((k) => `${k} (unknown)`) : [i.path.join('.') || '(command)'])
      const fields = [...new Set(names)].join(', ')
      init.warn(`engine: refused a '${cmd}' command (${known ? `invalid: ${fields}` : 'unknown command'})`)
      const id = typeof value.id === 'string' || typeof value.id === 'number' ? { id: value.id } : {}
      send({ type: 'error', code: known ? 'SDK_ENGINE_BAD_LINE' : 'SDK_ENGINE_UNKNOWN_COMMAND', message: known ? `invalid '${cmd}' command: ${fields}` : `unknown command '${cmd}'`, cmd, ...id })
      return
    }
    const c = parsed.data
    switch (c.cmd) {
      case 'start': return start(c)
      case 'requestPrefs': send({ type: 'prefs', ...prefs.get() }); return
      case 'saveCredentials': send({ type: 'prefs', ...(await prefs.saveCredentials(c.username, c.password)) }); return
      case 'clearCredentials': send({ type: 'prefs', ...(await prefs.clearCredentials()) }); return
      case 'toggleFavorite': send({ type: 'prefs', ...(await prefs.toggleFavorite(c.streamId)) }); return
      case 'stop': await close(); init.onStopped?.(); return
      default: break
    }
    const p = started(c.cmd, c)
    if (p === null) return
    try {
      switch (c.cmd) {
        case 'login': return await login(p, c)
        case 'play': {
          const r = await p.resolve(c.streamId)
          return playing(p, c.streamId, r.feedKey)
        }
        case 'playRaw':
          await p.serveFeed(c.feedKey, c.encKey)
          return playing(p, null, c.feedKey)
        case 'reconnect': return await p.reconnectActiveFeed()
        case 'setZapPrefetch': return p.setZapPrefetch(c.value)
        case 'setNetworkProfile': return p.setNetworkProfile({ expensive: c.expensive })
        default: return await service(p, c)
      }
    } catch (err) {
      fail(err, c.cmd, c, c.cmd === 'play' ? { streamId: c.streamId } : {})
    }
  }

  type ServiceCommand = Extract<EngineCommand, { cmd: 'report' | 'epg' | 'vodProvider' | 'setUploadPolicy' | 'prewarm' | 'sessionLive' }>

  // Protocol 2: the SDK's features beyond playback (docs/engine-ipc.md "Commands").
  async function service (p: Player, c: ServiceCommand): Promise<void> {
    const id = c.id !== undefined ? { id: c.id } : {}
    switch (c.cmd) {
      case 'report': {
        const { cmd: _cmd, id: _id, ...input } = c
        const r = await p.report(input)
        return send({ type: 'report', channel: c.channel, category: c.category, status: r.status, ...(r.retryAfter !== undefined ? { retryAfter: r.retryAfter } : {}), ...id })
      }
      case 'epg': {
        const r = await epg.useEpg(c.epgUrl, c.epgId)
        return send({ type: 'epg', epgUrl: c.epgUrl, epgId: c.epgId, now: r.data.now, next: r.data.next, loaded: r.loaded, ...id })
      }
      case 'vodProvider': return send({ type: 'vod-provider', provider: p.vodProvider(), ...id })
      // Answered by the player's 'upload-policy' event (spec 3: "echoed as an upload-policy event").
      case 'setUploadPolicy': await p.setUploadPolicy(c.policy); return
      case 'prewarm': return send({ type: 'prewarm', warmed: await p.prewarm(c.count), ...id })
      case 'sessionLive': return send({ type: 'session-live', live: await p.sessionLive(), ...id })
    }
  }

  function close (): Promise<void> {
    stopAsked.abort()
    stopping ??= (async () => { await player?.stop() })()
    return stopping
  }

  // The saved prefs are announced at boot, before any command (a host may auto-login with them).
  chain = chain.then(async () => { send({ type: 'prefs', ...(await prefs.load()) }) })

  return { push: (chunk) => decoder.push(chunk), close }
}

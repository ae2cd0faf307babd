import b4a from 'b4a'
import { openCatalogReader, type CatalogReader, type Rail, type StreamRecord } from '@arus/catalog'
import { fromHex, type KeyPair } from '@arus/crypto'
import { topicFor } from '@arus/swarm'
import { PanelAssets } from './assets.js'
import { CATALOG_READ_TIMEOUT_MS, LOGIN_CATALOG_WAIT_MS, LOGIN_PANEL_WAIT_MS } from './constants.js'
import { loadDeviceKey } from './device.js'
import { buildDisplayList, presentation, sameList, visibleRails } from './display.js'
import { SafeEmitter } from './emitter.js'
import { SdkError } from './errors.js'
import type {
  ActiveSource, DisplayItem, LoginOptions, Player, PlayerComponents, PlayerDiagnostics, PlayerEvents, PlayerInit, ReportInput, VodProvider, CategoryRail,
  ReportResult, ResolveResult, SessionInfo, UploadPolicy, UploadPolicyResult, ZapPrefetchInit
} from './index.js'
import type { FeedSession } from './feed-session.js'
import { Lineup } from './lineup.js'
import { runLogin, type LoginState } from './login.js'
import { Network } from './network.js'
import { collectWarm, dialWarm, loadWarm, saveWarm, WARM_SAVE_MS, type WarmState } from './warm-dial.js'
import { HexKey, parsePlayerInit, resolveZap, UploadPolicySchema, type PlayerConfig } from './options.js'
import { Playback } from './playback.js'
import { Reporter } from './report.js'
import { decideResolve } from './resolve.js'
import { defaultRuntime, type PlayerRuntime } from './runtime.js'
import { startLocalServer, type LocalServer } from './server/local-server.js'
import { PhaseTrace, type Phase } from './trace.js'
import { sessionLive } from './session.js'
import type { TopicHandle } from './topics.js'
import { prewarmTopics, warmNeighbor } from './warm.js'
import { ZapPrefetch } from './zap.js'

/** The engine: composition of the network, catalog, login, local server and playback parts. */
export class PlayerImpl extends SafeEmitter<PlayerEvents> implements Player {
  private readonly config: PlayerConfig
  private readonly now: () => number
  private runtime: PlayerRuntime | null
  private net: Network | null = null
  private server: LocalServer | null = null
  private starting: Promise<Network> | null = null
  private panelKey: Uint8Array | null = null
  private catalog: CatalogReader | null = null
  private panelTopic: TopicHandle | null = null
  private device: Promise<KeyPair> | null = null
  private login_: LoginState | null = null
  private list: DisplayItem[] = []
  private vod: VodProvider | null = null
  private rails: Rail[] = []
  private loginPending = false
  private lastLogin: { totalMs: number; phases: Phase[] } | null = null
  private warmed: TopicHandle[] = []
  /** Warm dial (warm-dial.ts): what the last run remembered, and the periodic save. */
  private warm: WarmState | null = null
  private warmTimer: ReturnType<typeof setInterval> | null = null
  private readonly served = new Map<string, number>()
  private uploadPolicy: UploadPolicy
  private stopped = false
  private readonly lineup = new Lineup((changed) => this.onCatalog(changed))
  private readonly assets = new PanelAssets(() => this.network().store, () => this.catalog)
  private readonly playback: Playback
  private readonly zap: ZapPrefetch
  private readonly reporter: Reporter

  constructor (init: PlayerInit | undefined, components: PlayerComponents) {
    super()
    this.config = parsePlayerInit(init)
    this.now = components.now ?? Date.now
    this.runtime = components.runtime ?? null
    this.uploadPolicy = this.config.uploadPolicy
    this.playback = new Playback({
      net: () => this.network(),
      tune: this.config.tune,
      readAheadSegments: this.config.server.readAheadSegments,
      now: this.now,
      localUrl: () => `http://127.0.0.1:${this.port ?? 0}/index.m3u8`,
      panelKey: () => (this.panelKey === null ? null : b4a.toString(this.panelKey, 'hex')),
      status: (e) => { this.reporter.note('status', e.state); this.emit('status', e) },
      error: (err) => { this.reporter.note('error', err.message); this.emit('error', err) },
      peers: (n) => this.emit('peers', n),
      feedChanged: (e) => this.emit('feed-changed', e)
    })
    this.zap = new ZapPrefetch({
      now: this.now,
      emit: (e) => this.emit('zap-prefetch', e),
      ring: () => this.list.filter((i) => i.type === 'live' && !i.redirect && i.available).map((i) => i.id),
      activeId: () => { const s = this.playback.source(); return s !== null && s.source === 'p2p' && s.type === 'live' ? s.streamId : null },
      activeAdvance: async () => {
        const session = this.playback.session()
        if (session === null) return null
        await session.playlist(2_000, this.now()).catch(() => null)
        return session.lastAdvanceAt || null
      },
      warm: async (id) => {
        const record = this.lineup.records.get(id)
        const key = this.login_?.keys.get(id)
        if (record?.feedKey === null || record === undefined || key === undefined || record.redirect) return null
        return warmNeighbor(this.network(), id, record.feedKey, key, this.panelHex(), this.now)
      }
    })
    this.reporter = new Reporter({
      now: this.now,
      rpc: () => this.net?.rpc() ?? null,
      token: () => this.login_?.token ?? null,
      peers: () => this.playback.session()?.peers() ?? 0
    })
    const zap = resolveZap(this.config.zapPrefetch)
    if (zap !== null) this.zap.set(zap, false)
  }

  get port (): number | null { return this.server?.port ?? null }

  async connect (panelPubKey?: string): Promise<void> {
    this.alive()
    const hex = panelPubKey ?? this.config.panelPubKey
    if (hex === undefined) throw SdkError.noPanelKey()
    const parsed = HexKey.safeParse(hex)
    if (!parsed.success) throw SdkError.invalidArgument('panelPubKey', 'expected 64 hex characters')
    const key = fromHex(parsed.data, 32)
    if (this.panelKey !== null) {
      if (!b4a.equals(this.panelKey, key)) throw SdkError.invalidArgument('panelPubKey', 'this player is connected to another panel')
      return
    }
    const net = await this.start()
    this.panelKey = key
    net.setPanelKey(key)
    // The device key is read (or minted) while the catalog opens: login needs it to sign.
    this.deviceKey().catch(() => {})
    await net.withRecovery(() => this.openCatalog(key))
    this.panelTopic = net.topics.join(topicFor(key), 'panel')
    if (this.config.swarm.warmDial) {
      // The remembered panel entry counts only for this panel; remembered peers for any.
      const warm = this.warm === null ? null : { ...this.warm, peers: this.warm.peers.filter((p) => p.role === 'peer' || p.key === b4a.toString(key, 'hex')) }
      if (warm !== null) dialWarm(net.swarm, warm)
      this.warmTimer = setInterval(() => { void this.saveWarm() }, WARM_SAVE_MS)
      this.warmTimer.unref?.()
    }
    this.emit('ready')
  }

  async login (username: string, password: string, opts: LoginOptions = {}): Promise<DisplayItem[]> {
    this.alive()
    if (typeof username !== 'string' || username === '' || typeof password !== 'string') throw SdkError.invalidArgument('credentials', 'username and password must be non-empty strings')
    const linkWaitMs = opts.linkWaitMs ?? LOGIN_PANEL_WAIT_MS
    if (typeof linkWaitMs !== 'number' || !(linkWaitMs >= 0) || !Number.isFinite(linkWaitMs)) throw SdkError.invalidArgument('linkWaitMs', 'must be a finite number of ms, 0 or more')
    const net = this.net
    const catalog = this.catalog
    if (net === null || catalog === null) throw SdkError.notConnected()
    const trace = new PhaseTrace()
    // A login right after connect() waits for the panel link (bounded) instead of failing at once.
    const link = trace.time('panel link', async () => ((await net.waitForPanel(linkWaitMs, opts.signal)) && !this.stopped ? net.rpc() : null))
    const { state, enrolled } = await runLogin(link, catalog, { username, password, device: trace.time('device key', () => this.deviceKey()), label: this.config.deviceLabel }, trace)
    // Until this login emits its list, catalog pushes only update the replica (one 'streams' per login).
    this.loginPending = true
    try {
      this.login_ = state
      // The replica shows this session's enrollment first: an edit the panel made before this
      // login (appended before the enrollment) is then in the replica the list is built from.
      await enrolled
      await trace.time('display list', async () => {
        // The lineup caught up with the version the replica has now (a login right after
        // connect() can outrun the watch's first passes).
        if (!(await within(this.lineup.settled(), LOGIN_CATALOG_WAIT_MS))) throw SdkError.catalogUnavailable()
        const vod = await catalog.getVodConfig().catch(() => null)
        this.vod = vod === null ? null : { enabled: vod.enabled, apiBase: vod.apiBase, service: vod.service, sources: { ...vod.sources }, params: { ...vod.params } }
        this.list = this.buildList()
      })
    } finally {
      this.loginPending = false
    }
    this.lastLogin = { totalMs: trace.elapsed(), phases: trace.phases }
    this.emit('streams', this.list)
    const warm = this.config.prewarm
    if (warm !== false) await this.prewarm(warm === true ? undefined : warm)
    return this.list
  }

  listStreams (): DisplayItem[] { return this.list }

  categories (): CategoryRail[] { return this.rails.map((r) => ({ ...r })) }

  vodProvider (): VodProvider | null { return this.vod === null ? null : { ...this.vod, sources: { ...this.vod.sources }, params: { ...this.vod.params } } }

  async resolve (streamId: string): Promise<ResolveResult> {
    this.alive()
    if (typeof streamId !== 'string' || streamId === '') throw SdkError.invalidArgument('streamId', 'must be a non-empty string')
    const state = this.login_
    if (state === null || this.catalog === null) throw SdkError.notLoggedIn()
    const key = state.keys.get(streamId)
    if (key === undefined) throw SdkError.notEntitled(streamId)
    const record = await this.freshRecord(streamId)
    const decision = decideResolve(streamId, record)
    const previous = this.playback.source()?.streamId ?? null
    if (decision.kind === 'cdn') {
      await this.playback.playRedirect(streamId, decision.url)
      await this.zap.reset()
      return { url: decision.url, source: 'cdn', feedKey: null, type: 'live' }
    }
    const warm = decision.type === 'live' ? this.zap.take(streamId) as FeedSession | null : null
    await this.playback.playFeed(streamId, decision.feedKey, key, decision.type, warm)
    if (decision.type === 'live') this.zap.noteZap(previous, streamId)
    else await this.zap.reset()
    const url = `http://127.0.0.1:${this.port ?? 0}/index.m3u8`
    const result: ResolveResult = { url, source: 'p2p', localUrl: url, port: this.port ?? 0, feedKey: decision.feedKey, type: decision.type }
    if (decision.type === 'vod') result.durationSec = decision.durationSec
    return result
  }

  source (): ActiveSource | null { return this.playback.source() }

  async serveFeed (feedKey: string, encKey: string): Promise<number> {
    this.alive()
    const fk = HexKey.safeParse(feedKey)
    const ek = HexKey.safeParse(encKey)
    if (!fk.success || !ek.success) throw SdkError.invalidArgument('serveFeed', 'feedKey and encKey must be 64 hex characters')
    await this.start()
    await this.playback.playFeed(null, fk.data, fromHex(ek.data, 32), 'live')
    await this.zap.reset()
    return this.port ?? 0
  }

  assetUrl (path: string): string {
    if (typeof path !== 'string') throw SdkError.invalidArgument('path', 'must be a string')
    if (/^https?:\/\//i.test(path) || path === '') return path
    const clean = path.replace(/^\/+/, '')
    if (!/^assets\/[0-9a-f]{16,128}\.(png|jpg|jpeg|webp|gif|svg)$/.test(clean)) throw SdkError.invalidArgument('path', 'not a catalog art path')
    if (this.port === null) throw SdkError.notConnected()
    return `http://127.0.0.1:${this.port}/${clean}`
  }

  async prewarm (count?: number): Promise<number> {
    this.alive()
    if (this.login_ === null) throw SdkError.notLoggedIn()
    const candidates = this.list.filter((i) => i.type === 'live' && !i.redirect && i.available)
    const n = count ?? (typeof this.config.prewarm === 'number' ? this.config.prewarm : candidates.length)
    const keys = candidates.slice(0, Math.max(0, n)).map((i) => this.lineup.records.get(i.id)?.feedKey).filter((k): k is string => typeof k === 'string')
    for (const h of this.warmed) void h.leave()
    this.warmed = prewarmTopics(this.network(), keys)
    return keys.length
  }

  setZapPrefetch (value: boolean | ZapPrefetchInit): void {
    this.alive()
    this.zap.set(resolveZap(value))
  }

  setNetworkProfile (profile: { expensive: boolean }): void {
    if (profile === null || typeof profile !== 'object' || typeof profile.expensive !== 'boolean') throw SdkError.invalidArgument('profile', '{ expensive: boolean } expected')
    this.zap.setExpensive(profile.expensive)
  }

  async setUploadPolicy (policy: UploadPolicy): Promise<UploadPolicyResult> {
    this.alive()
    const parsed = UploadPolicySchema.safeParse(policy)
    if (!parsed.success) throw SdkError.invalidArgument('policy', "'reseed' or 'client-only'")
    const changed = parsed.data !== this.uploadPolicy
    this.uploadPolicy = parsed.data
    let rejoined = 0
    if (changed && this.net !== null) {
      rejoined = await this.net.topics.setAnnounce(parsed.data === 'reseed')
      // Standing reseed connections (peers that dialed us to fetch) go; our own dials stay.
      if (parsed.data === 'client-only') for (const c of this.net.peerConnections()) if (c.isInitiator === false) c.destroy()
      // ...and on our own dials, the feed's cores stop (or start again) serving blocks.
      this.playback.session()?.applyUploadPolicy()
    }
    this.emit('upload-policy', { policy: parsed.data, rejoined })
    return { policy: parsed.data, changed, rejoined }
  }

  async reconnectActiveFeed (): Promise<void> {
    this.alive()
    await this.playback.reconnect()
  }

  report (input: ReportInput): Promise<ReportResult> {
    this.alive()
    return this.reporter.report(input)
  }

  session (): SessionInfo | null {
    const s = this.login_
    return s === null ? null : { username: s.username, deviceId: s.deviceId, token: s.token, expiresAt: s.expiresAt, tokenVersion: s.tokenVersion, deviceCount: s.deviceCount }
  }

  async sessionLive (): Promise<boolean> {
    const s = this.login_
    if (s === null || this.catalog === null) return false
    await this.catalog.update({ wait: true, timeoutMs: CATALOG_READ_TIMEOUT_MS }).catch(() => false)
    return sessionLive(this.catalog, { v: 1, typ: 'session', sub: s.username, dev: s.deviceId, tv: s.tokenVersion, iat: 0, exp: s.expiresAt })
  }

  diagnostics (): PlayerDiagnostics {
    const session = this.playback.session()
    return {
      publicKey: this.net === null ? null : b4a.toString(this.net.publicKey, 'hex'),
      port: this.port,
      panelLinked: this.net?.rpc() != null,
      connections: this.net?.swarm.connections.size ?? 0,
      uploadPolicy: this.uploadPolicy,
      feedTopics: this.net?.topics.list('feed').length ?? 0,
      prewarmed: this.net?.topics.list('prewarm').length ?? 0,
      feed: session === null ? null : { streamId: session.streamId, feedKey: session.feedKey, peers: session.peers(), bytesByPeer: session.bytesByPeer() },
      zap: { enabled: this.zap.enabled, suspended: this.zap.suspendedReason, warm: this.zap.warmIds() },
      lastLogin: this.lastLogin === null ? null : { totalMs: this.lastLogin.totalMs, phases: this.lastLogin.phases.map((p) => ({ ...p })) }
    }
  }

  async stop (): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    if (this.warmTimer !== null) clearInterval(this.warmTimer)
    await this.saveWarm()
    await this.zap.close()
    await this.playback.clear()
    for (const h of this.warmed) await h.leave()
    await this.panelTopic?.leave()
    await this.lineup.close()
    await this.assets.close()
    await this.catalog?.close().catch(() => {})
    await this.server?.close()
    await this.starting?.catch(() => null)
    await this.net?.destroy()
    if (this.login_ !== null) for (const k of this.login_.keys.values()) k.fill(0)
    this.login_ = null
    this.removeAllListeners()
  }

  private alive (): void { if (this.stopped) throw SdkError.stopped() }

  private network (): Network {
    if (this.net === null) throw SdkError.notConnected()
    return this.net
  }

  private fs () { return (this.runtime as PlayerRuntime).fs }

  /** Remembers the panel, the best-serving peers and DHT nodes for the next start (warm dial). Never throws. */
  private async saveWarm (): Promise<void> {
    const net = this.net
    if (!this.config.swarm.warmDial || net === null || this.runtime === null || this.panelKey === null) return
    for (const [key, b] of Object.entries(this.playback.session()?.bytesByPeer() ?? {})) {
      this.served.set(key, Math.max(this.served.get(key) ?? 0, b.downloaded))
    }
    try {
      const state = collectWarm(net.swarm, this.panelHex(), this.served, this.warm, this.now())
      await saveWarm(this.runtime.fs, this.config.storeDir, state)
    } catch {
      // a full disk or a store dir being purged: the next start dials cold
    }
  }
  private panelHex (): string | null { return this.panelKey === null ? null : b4a.toString(this.panelKey, 'hex') }

  /** Store, swarm and local server, once. */
  private start (): Promise<Network> {
    this.starting ??= (async () => {
      this.runtime ??= await defaultRuntime()
      const runtime = this.runtime
      this.warm = this.config.swarm.warmDial ? await loadWarm(runtime.fs, this.config.storeDir, this.now()) : null
      const net = new Network({
        storeDir: this.config.storeDir,
        bootstrap: this.config.swarm.bootstrap,
        ...(this.warm === null || this.warm.nodes.length === 0 ? {} : { nodes: this.warm.nodes.map((n) => ({ host: n.host, port: n.port })) }),
        maxPeers: this.config.swarm.maxPeers,
        writeBufferMiB: this.config.storage.writeBufferMiB,
        announce: this.uploadPolicy === 'reseed',
        fs: runtime.fs,
        onRecovered: (err) => this.emit('recovered', err)
      })
      this.net = net
      await net.openStore()
      const { holdMs, stallMs, readAheadSegments, allowOrigin } = this.config.server
      this.server = await startLocalServer(runtime, {
        holdMs, stallMs, readAheadSegments, allowOrigin, media: () => this.playback.media(), assets: () => (this.catalog === null ? null : this.assets)
      })
      if (this.stopped) throw SdkError.stopped()
      return net
    })()
    return this.starting
  }

  /** The device key pair, read (or minted) once; a failed read is tried again next time. */
  private deviceKey (): Promise<KeyPair> {
    if (this.device === null) {
      const loading = loadDeviceKey(this.fs(), this.config.storeDir)
      this.device = loading
      loading.catch(() => { if (this.device === loading) this.device = null })
    }
    return this.device
  }

  private async openCatalog (key: Uint8Array): Promise<void> {
    await this.lineup.close()
    await this.catalog?.close().catch(() => {})
    await this.assets.close()
    const reader = openCatalogReader({ store: this.network().store, panelPublicKey: key, readTimeoutMs: CATALOG_READ_TIMEOUT_MS })
    this.catalog = reader
    await reader.ready()
    this.lineup.start(reader)
  }

  private async freshRecord (id: string): Promise<StreamRecord | null> {
    const reader = this.catalog as CatalogReader
    await reader.update({ wait: false }).catch(() => false)
    try {
      return await reader.getStream(id)
    } catch (err) {
      throw SdkError.catalogUnavailable(err)
    }
  }

  private buildList (): DisplayItem[] {
    const entitled = new Set(this.login_?.keys.keys() ?? [])
    const shown = presentation(this.lineup.records, this.lineup.categories)
    this.rails = visibleRails(this.lineup.records, entitled, shown)
    return buildDisplayList(this.lineup.records, entitled, (p) => this.assetUrl(p), shown)
  }

  private onCatalog (changed: Map<string, StreamRecord | null>): void {
    if (this.login_ === null) return
    if (!this.loginPending) {
      const rails = this.rails
      const next = this.buildList()
      // A presentation edit (rename, merge, hide, reorder) re-emits even when no item changed.
      if (!sameList(next, this.list) || JSON.stringify(rails) !== JSON.stringify(this.rails)) {
        this.list = next
        this.emit('streams', next)
      }
    }
    // Live push for the watched stream: a rotated feedKey is followed behind the same URL.
    const active = this.playback.source()
    if (active === null || active.source !== 'p2p' || active.type !== 'live' || active.streamId === null) return
    const record = changed.get(active.streamId)
    const key = this.login_.keys.get(active.streamId)
    if (record?.type === 'live' && !record.redirect && record.feedKey !== null && key !== undefined) {
      void this.playback.follow(active.streamId, record.feedKey, key).catch((err: Error) => this.emit('error', err))
    }
  }
}

async function within (p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    return await Promise.race([p.then(() => true, () => false), new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), ms) })])
  } finally {
    clearTimeout(timer)
  }
}

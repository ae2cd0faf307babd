import { mkdir, rm } from 'node:fs/promises'
import type { FastifyInstance } from 'fastify'
import { fromHex } from '@arus/crypto'
import { createEgressBudget } from '@arus/feed'
import { controlSettings, ensurePrivateDir, listenControlServer, loadSigningKey, swarmSettings, type Logger } from '@arus/service'
import { createStore, createSwarm, parseBootstrap, tuneSocketBuffers } from '@arus/swarm'
import { openAnalytics, type Analytics } from './analytics.js'
import { broadcasterActivity, broadcasterAdmins } from './audit.js'
import { createCapabilitiesCache } from './capabilities.js'
import { ensureEnvChannel } from './channels/env-channel.js'
import { createFeedHost } from './channels/feeds.js'
import { createChannelManager, type ChannelManager } from './channels/manager.js'
import { createResume } from './channels/resume.js'
import { openChannelStores } from './channels/store.js'
import type { BroadcasterConfig } from './config.js'
import { buildBroadcasterServer } from './http/server.js'
import { openIncidentLog } from './incidents.js'
import { createBroadcasterMetrics } from './metrics.js'
import { broadcasterPaths } from './paths.js'
import { createSlateFactory } from './pipeline/slate.js'
import { createPanelLink } from '@arus/publisher'
import { broadcasterSnapshots, managerWriter } from './snapshots.js'
import { healthExtras, serviceStatus } from './status.js'
import { managerSettings } from './settings.js'

/** The share of ORIGIN_UPLINK_KBIT that block answers may use (the rest: the panel, syncs, encryption and UDX overhead). */
const ORIGIN_BUDGET_SHARE = 0.85
/**
 * The share of the budget kept for a trusted relay while one is served: the relay carries the
 * whole audience, viewers asking the origin directly get the rest (docs/architecture.md
 * "Origin egress"; the lab: docs/benchmarks.md "Swarm with a repeater").
 */
const RELAY_RESERVE = 0.9

/** A running broadcaster (the composition root's product); `close` tears down in reverse order. */
export interface RunningBroadcaster {
  manager: ChannelManager
  analytics: Analytics
  /** The control server (listening at controlUrl) when CONTROL_ENABLED=1. */
  control: FastifyInstance | null
  controlUrl: string | null
  log: Logger
  close(): Promise<void>
}

/** The broadcaster's composition root; `close` tears down in reverse order. */
export async function main (config: BroadcasterConfig, log: Logger): Promise<RunningBroadcaster> {
  const startedAt = Date.now()
  const paths = broadcasterPaths(config.DATA_DIR)
  await ensurePrivateDir(paths.privateDir)
  await rm(paths.scratch, { recursive: true, force: true })
  await mkdir(paths.scratch, { recursive: true })
  const stores = await openChannelStores(paths)
  const store = createStore(paths.store)
  const swarm = createSwarm({ ...swarmSettings(config), bootstrap: parseBootstrap(config.BOOTSTRAP) })
  tuneSocketBuffers(swarm, { recvBufferBytes: config.SWARM_RCVBUF_MB << 20, sendBufferBytes: config.SWARM_SNDBUF_MB << 20 })
    .catch((err: Error) => log.warn({ event: 'swarm.buffers', err: err.message }, 'socket buffer tuning failed'))
  const link = config.PANEL_PUBKEY && config.PUBLISHER_KEY
    ? createPanelLink({ swarm, log }, { panelKey: fromHex(config.PANEL_PUBKEY, 32), publisherKey: fromHex(config.PUBLISHER_KEY, 64), publisherName: config.PUBLISHER_NAME, heartbeatMs: config.REGISTER_HEARTBEAT_SEC * 1000 })
    : null
  if (!link) log.warn({ event: 'panel.unconfigured' }, 'PANEL_PUBKEY or PUBLISHER_KEY unset: channels run but are not registered')
  swarm.on('connection', (conn) => {
    link?.onConnection(conn) // opens the RPC channel at once on the panel's connection
    store.replicate(conn)
  })

  const analytics = await openAnalytics({
    enabled: config.ANALYTICS_ENABLED, retentionDays: config.ANALYTICS_RETENTION_DAYS, sampleMs: config.ANALYTICS_SAMPLE_SEC * 1000, path: paths.analytics
  })
  const incidents = await openIncidentLog(paths.incidents, { onIncident: () => analytics.incident() })
  // One upload budget for every channel: they share this box's uplink.
  // With trusted relays, most of it is kept for them while one is served (RELAY_RESERVE).
  const budget = config.ORIGIN_UPLINK_KBIT > 0
    ? createEgressBudget({ bytesPerSecond: config.ORIGIN_UPLINK_KBIT * 1000 / 8 * ORIGIN_BUDGET_SHARE, reserve: config.ORIGIN_RELAY_KEYS.length > 0 ? RELAY_RESERVE : 0 })
    : undefined
  const feeds = createFeedHost({ store, swarm, stores, log }, {
    graceMs: config.ROTATE_GRACE_SEC * 1000,
    uploadShaping: config.ORIGIN_PEERS_PER_BLOCK === 0
      ? false
      : { peersPerBlock: config.ORIGIN_PEERS_PER_BLOCK, holdMs: config.ORIGIN_HOLD_MS, relays: config.ORIGIN_RELAY_KEYS, ...(budget === undefined ? {} : { budget }) }
  })
  const slates = createSlateFactory({ ffmpeg: config.FFMPEG_PATH, dir: paths.slates })
  const manager = createChannelManager({ stores, feeds, link, slates, incidents, log, onRespawn: (id) => analytics.respawn(id) }, managerSettings(config, paths))
  analytics.start(() => manager.counters())
  await link?.start()
  await ensureEnvChannel(config, manager, stores, log)

  const resume = createResume(manager, log, { paceMs: config.RESUME_PACE ? config.RESUME_PACE_MS : 0 })
  const sources = { manager, link, publisherName: config.PUBLISHER_NAME, swarm, resume }
  const activity = broadcasterActivity(log)
  const snapshots = broadcasterSnapshots(config, paths, { stores, writer: managerWriter(manager), log, activity })
  const settings = controlSettings(config, 'CONTROL')
  const control = settings.enabled
    ? buildBroadcasterServer({
      log, manager, analytics, incidents, startedAt, settings, snapshots,
      metrics: createBroadcasterMetrics({ manager, analytics, incidents, resume }),
      status: () => serviceStatus(sources),
      health: () => healthExtras(sources),
      admins: broadcasterAdmins(paths.admins, settings, { activity, beforeDestructive: (what) => snapshots.beforeDestructive(what) }),
      keys: await loadSigningKey(paths.controlKey),
      capabilities: createCapabilitiesCache(config.FFMPEG_PATH, config.FFPROBE_PATH)
    })
    : null
  const controlUrl = control ? await listenControlServer(control, { host: settings.host, port: settings.port }) : null
  resume.start()
  log.info({ event: 'broadcaster.ready', controlUrl, panel: link !== null }, 'broadcaster ready')

  return {
    manager,
    analytics,
    control,
    controlUrl,
    log,
    async close () {
      resume.cancel()
      await control?.close()
      await resume.done()
      await manager.close()
      await link?.settle(2000)
      await link?.close()
      await feeds.close()
      await analytics.close()
      await incidents.flush()
      await swarm.destroy().catch(() => {})
      await store.close().catch(() => {})
    }
  }
}

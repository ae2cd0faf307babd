import { mkdir, rm } from 'node:fs/promises'
import type { FastifyInstance } from 'fastify'
import { fromHex } from '@arus/crypto'
import { ensurePrivateDir, listenControlServer, type Logger } from '@arus/service'
import { createStore, createSwarm, parseBootstrap, tuneSocketBuffers } from '@arus/swarm'
import { openAnalytics, type Analytics } from './analytics.js'
import { createCapabilitiesCache } from './capabilities.js'
import { ensureEnvChannel } from './channels/env-channel.js'
import { createFeedHost } from './channels/feeds.js'
import { createChannelManager, type ChannelManager } from './channels/manager.js'
import { startResume, type Resume } from './channels/resume.js'
import { openChannelStores } from './channels/store.js'
import type { BroadcasterConfig } from './config.js'
import { loadControlKey } from './control-key.js'
import { buildBroadcasterServer } from './http/server.js'
import { openIncidentLog } from './incidents.js'
import { createBroadcasterMetrics } from './metrics.js'
import { broadcasterPaths } from './paths.js'
import { createSlateFactory } from './pipeline/slate.js'
import { createPanelLink } from './register.js'
import { healthExtras, serviceStatus } from './status.js'
import { controlSettings, managerSettings } from './settings.js'

/** A running broadcaster (the composition root's product); `close` tears down in reverse order. */
export interface RunningBroadcaster {
  manager: ChannelManager
  analytics: Analytics
  /** The control server (listening at controlUrl) when CONTROL_ENABLED=1. */
  control: FastifyInstance | null
  controlUrl: string | null
  close(): Promise<void>
}

export async function startBroadcaster (config: BroadcasterConfig, log: Logger): Promise<RunningBroadcaster> {
  const startedAt = Date.now()
  const paths = broadcasterPaths(config.DATA_DIR)
  await ensurePrivateDir(paths.privateDir)
  await rm(paths.scratch, { recursive: true, force: true })
  await mkdir(paths.scratch, { recursive: true })
  const stores = await openChannelStores(paths)
  const store = createStore(paths.store)
  const swarm = createSwarm({
    bootstrap: parseBootstrap(config.BOOTSTRAP),
    maxPeers: config.SWARM_MAX_PEERS,
    ...(config.SWARM_HOST ? { host: config.SWARM_HOST } : {}),
    ...(config.SWARM_PORT ? { port: config.SWARM_PORT } : {}),
    ...(config.SWARM_FIREWALLED === 'auto' ? {} : { firewalled: config.SWARM_FIREWALLED === '1' })
  })
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

  let analytics: Analytics | null = null
  const incidents = await openIncidentLog(paths.incidents, { onIncident: () => analytics?.incident() })
  const feeds = createFeedHost({ store, swarm, stores, log }, {
    graceMs: config.ROTATE_GRACE_SEC * 1000,
    uploadShaping: config.ORIGIN_PEERS_PER_BLOCK === 0 ? false : { peersPerBlock: config.ORIGIN_PEERS_PER_BLOCK, holdMs: config.ORIGIN_HOLD_MS }
  })
  const slates = createSlateFactory({ ffmpeg: config.FFMPEG_PATH, dir: paths.slates })
  const manager = createChannelManager({ stores, feeds, link, slates, incidents, log, onRespawn: (id) => analytics?.respawn(id) }, managerSettings(config, paths))
  analytics = await openAnalytics(() => manager.counters(), {
    enabled: config.ANALYTICS_ENABLED, retentionDays: config.ANALYTICS_RETENTION_DAYS, sampleMs: config.ANALYTICS_SAMPLE_SEC * 1000, path: paths.analytics
  })
  await link?.start()
  await ensureEnvChannel(config, manager, stores, log)

  let resume: Resume | null = null
  const sources = { manager, link, publisherName: config.PUBLISHER_NAME, swarm, resume: () => resume }
  const control = config.CONTROL_ENABLED
    ? buildBroadcasterServer({
      log, manager, analytics, incidents, startedAt,
      metrics: createBroadcasterMetrics({ manager, analytics, incidents, resume: () => resume }),
      status: () => serviceStatus(sources),
      health: () => healthExtras(sources),
      admins: { adminsPath: paths.admins, argon: { opslimit: config.ARGON2_OPS, memlimit: config.ARGON2_MEM_KIB * 1024 }, log },
      keys: await loadControlKey(paths.controlKey),
      settings: controlSettings(config),
      capabilities: createCapabilitiesCache(config.FFMPEG_PATH, config.FFPROBE_PATH)
    })
    : null
  const controlUrl = control ? await listenControlServer(control, { host: config.CONTROL_HOST, port: config.CONTROL_PORT }) : null
  resume = startResume(manager, log, { paceMs: config.RESUME_PACE ? config.RESUME_PACE_MS : 0 })
  log.info({ event: 'broadcaster.ready', controlUrl, panel: link !== null }, 'broadcaster ready')

  return {
    manager,
    analytics,
    control,
    controlUrl,
    async close () {
      resume?.cancel()
      await control?.close()
      await resume?.done
      await manager.close()
      await link?.settle(2000)
      await link?.close()
      await feeds.close()
      await analytics?.close()
      await incidents.flush()
      await swarm.destroy().catch(() => {})
      await store.close().catch(() => {})
    }
  }
}

import type Hyperswarm from 'hyperswarm'
import { controlSettings, swarmSettings, type Logger } from '@arus/service'
import { createSwarm, parseBootstrap, topicFor } from '@arus/swarm'
import { createAnalytics } from './analytics/index.js'
import { panelActivity } from './audit.js'
import { panelSettings, type PanelConfig } from './config.js'
import type { PanelContext } from './context.js'
import { startAdminServer } from './http/server.js'
import { countChannels, createPanelMetrics, type PanelMetrics } from './metrics.js'
import { openPanel } from './open.js'
import { reconcileUsers } from './ops/reconcile.js'
import { panelReports } from './reports.js'
import { watchRegistries } from './registry-watch.js'
import { startSourceScheduler } from './sources/scheduler.js'
import { servePanelRpc } from './rpc/serve.js'

/** A running panel: the P2P side (catalog replication + RPC) and, with ADMIN_ENABLED=1, the admin API. */
export interface RunningPanel {
  ctx: PanelContext
  swarm: Hyperswarm
  metrics: PanelMetrics
  startedAt: number
  /** The admin API's URL when ADMIN_ENABLED=1 (also logged as `admin.listening`). */
  adminUrl: string | null
  log: Logger
  close(): Promise<void>
}

/** The panel's composition root: store and context, swarm, RPC, admin API; `close` tears down in reverse. */
export async function main (config: PanelConfig, log: Logger): Promise<RunningPanel> {
  const activity = panelActivity(log)
  const opened = await openPanel(config.DATA_DIR, panelSettings(config), { log, activity })
  const { ctx, store } = opened
  // Every user and group as the registries say (issue 43: records from before grant groups move
  // to them here, each written once); a consistent catalog costs no write.
  const boot = await reconcileUsers(ctx, 'all').catch(async (err: unknown) => { await opened.close(); throw err })
  log.info({ event: 'grants.boot-reconcile', users: boot.users, written: boot.written, groups: boot.groups }, 'grants reconciled at boot')
  const swarm = createSwarm({
    ...swarmSettings(config),
    bootstrap: parseBootstrap(config.BOOTSTRAP),
    // The panel's swarm identity IS its panel key: clients check remotePublicKey before speaking.
    keyPair: { publicKey: ctx.identity.publicKey, secretKey: ctx.identity.secretKey }
  })
  const metrics = createPanelMetrics()
  const reports = panelReports(config, ctx, metrics, log)
  const analytics = createAnalytics({ log, now: ctx.now, onlineApps: () => swarm.connections.size, catalogCounts: () => countChannels(ctx.catalog) },
    { dir: ctx.paths.analytics, saltFile: ctx.paths.analyticsSalt, retentionDays: config.ANALYTICS_RETENTION_DAYS })
  const rpc = servePanelRpc(ctx, store, swarm, metrics, reports, analytics)
  const registries = await watchRegistries(ctx)
  const sources = startSourceScheduler(ctx)
  const closeP2p = async () => {
    await sources.close()
    await registries.close()
    await rpc.close()
    await swarm.destroy().catch(() => {})
    await analytics.close()
    await reports.close()
    await opened.close()
  }
  const startedAt = Date.now()
  let admin: Awaited<ReturnType<typeof startAdminServer>> | null = null
  try {
    await reports.start()
    await analytics.ready()
    await swarm.join(topicFor(ctx.identity.publicKey), { server: true, client: false }).flushed()
    metrics.bind({ startedAt, swarmConnections: () => swarm.connections.size, channels: () => countChannels(ctx.catalog) })
    log.info({ event: 'panel.ready', panelKey: Buffer.from(ctx.identity.publicKey).toString('hex') }, 'panel ready')
    // The admin API and dashboard only when ADMIN_ENABLED=1 (spec 1 "What the service does" 4).
    const control = controlSettings(config, 'ADMIN')
    if (control.enabled) admin = await startAdminServer({ ctx, metrics, reports, analytics, startedAt, swarm, onSourcesChanged: () => sources.poke() }, control, log)
  } catch (err) {
    await closeP2p()
    throw err
  }
  return {
    ctx, swarm, metrics, startedAt, log,
    adminUrl: admin?.url ?? null,
    async close () {
      await admin?.close()
      await closeP2p()
    }
  }
}

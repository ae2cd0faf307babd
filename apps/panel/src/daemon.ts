import { createRpcResponder } from '@arus/rpc'
import { createLockout, type Logger } from '@arus/service'
import { createSwarm, parseBootstrap, topicFor } from '@arus/swarm'
import type Hyperswarm from 'hyperswarm'
import { createActivityRing } from './activity.js'
import { createBlobsFiller } from './blobs.js'
import { panelSettings, type PanelConfig } from './config.js'
import type { PanelContext } from './context.js'
import { countChannels, createPanelMetrics, type PanelMetrics } from './metrics.js'
import { openPanel } from './open.js'
import { createAuthHandlers } from './rpc/auth.js'
import { createRegisterHandler } from './rpc/register.js'

/** A running panel: the P2P side (catalog replication + RPC). The admin HTTP server attaches to `ctx`. */
export interface RunningPanel {
  ctx: PanelContext
  swarm: Hyperswarm
  metrics: PanelMetrics
  startedAt: number
  close(): Promise<void>
}

export async function startPanel (config: PanelConfig, log: Logger): Promise<RunningPanel> {
  const opened = await openPanel(config.DATA_DIR, panelSettings(config), log)
  const { ctx, store } = opened
  ctx.activity = createActivityRing()
  const swarm = createSwarm({
    bootstrap: parseBootstrap(config.BOOTSTRAP),
    // The panel's swarm identity IS its panel key: clients check remotePublicKey before speaking.
    keyPair: { publicKey: ctx.identity.publicKey, secretKey: ctx.identity.secretKey },
    maxPeers: config.SWARM_MAX_PEERS,
    ...(config.SWARM_HOST ? { host: config.SWARM_HOST } : {}),
    ...(config.SWARM_PORT ? { port: config.SWARM_PORT } : {}),
    ...(config.SWARM_FIREWALLED === 'auto' ? {} : { firewalled: config.SWARM_FIREWALLED === '1' })
  })
  const metrics = createPanelMetrics()
  const throttle = createLockout({ threshold: ctx.settings.lockoutThreshold, windowSeconds: ctx.settings.lockoutSeconds })
  const blobs = createBlobsFiller(ctx, store, swarm)
  const handlers = {
    ...createAuthHandlers(ctx, throttle, metrics),
    register: createRegisterHandler(ctx, { onFeed: (id, feedKey) => blobs.schedule(id, feedKey) })
  }
  swarm.on('connection', (conn) => {
    conn.on('error', () => {})
    store.replicate(conn)
    createRpcResponder(conn, handlers, {
      onError: (err, method) => log.error({ event: 'rpc.error', method, err: (err as Error).message }, 'rpc handler failed')
    })
  })
  await swarm.join(topicFor(ctx.identity.publicKey), { server: true, client: false }).flushed()
  const startedAt = Date.now()
  metrics.bind({
    startedAt,
    swarmConnections: () => swarm.connections.size,
    channels: () => countChannels(ctx.catalog)
  })
  log.info({ event: 'panel.ready', panelKey: Buffer.from(ctx.identity.publicKey).toString('hex') }, 'panel ready')

  return {
    ctx,
    swarm,
    metrics,
    startedAt,
    async close () {
      await blobs.close()
      await swarm.destroy().catch(() => {})
      await opened.close()
    }
  }
}

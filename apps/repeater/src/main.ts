import type { FastifyInstance } from 'fastify'
import b4a from 'b4a'
import { openCatalogReader } from '@arus/catalog'
import { ensurePrivateDir, swarmSettings, type Logger } from '@arus/service'
import { createStore, createSwarm, parseBootstrap, topicFor, tuneSocketBuffers } from '@arus/swarm'
import type { RepeaterConfig } from './config.js'
import { AssetsMirror } from './assets.js'
import { loadIdentity } from './identity.js'
import { createRepeaterMetrics } from './metrics.js'
import { repeaterPaths } from './paths.js'
import { Repeater, TICK_MS } from './repeater.js'
import { LonelyRefresh } from './lookup.js'
import { describeSelection, parseSelection } from './selection.js'
import { listenStatusServer } from './status.js'

/** A running repeater; `close` tears down in reverse order. */
export interface RunningRepeater {
  repeater: Repeater
  /** The swarm public key (hex): what origins list in ORIGIN_RELAY_KEYS. */
  publicKey: string
  statusUrl: string | null
  log: Logger
  close(): Promise<void>
}

/** The repeater's composition root. */
export async function main (config: RepeaterConfig, log: Logger): Promise<RunningRepeater> {
  const startedAt = Date.now()
  const paths = repeaterPaths(config.DATA_DIR)
  await ensurePrivateDir(config.DATA_DIR)
  await ensurePrivateDir(paths.privateDir)
  const identity = (await loadIdentity(paths.swarmSeed, true))!
  const publicKey = b4a.toString(identity.publicKey, 'hex')
  const selection = parseSelection(config.CHANNELS)
  if (typeof selection === 'string') throw new Error(`CHANNELS ${selection}`) // loadConfig refused it already
  const panelKey = Buffer.from(config.PANEL_PUBKEY, 'hex')

  const store = createStore(paths.store)
  await store.ready()
  const swarm = createSwarm({ ...swarmSettings(config), bootstrap: parseBootstrap(config.BOOTSTRAP), keyPair: identity })
  tuneSocketBuffers(swarm, { recvBufferBytes: config.SWARM_RCVBUF_MB << 20, sendBufferBytes: config.SWARM_SNDBUF_MB << 20 })
    .catch((err: Error) => log.warn({ event: 'swarm.buffers', err: err.message }, 'socket buffer tuning failed'))
  swarm.on('connection', (conn) => { store.replicate(conn) })

  // The panel's public catalog, read as a viewer reads it before login: no account, no key.
  const catalog = openCatalogReader({ store, panelPublicKey: panelKey })
  await catalog.ready()
  const panelTopic = topicFor(panelKey)
  const panelLookup = new LonelyRefresh(swarm.join(panelTopic, { server: config.ANNOUNCE, client: true }), () => catalog.bee.core.peers.length === 0)
  const lookupTimer = setInterval(() => { panelLookup.tick() }, TICK_MS)
  lookupTimer.unref?.()
  const panelData = config.PANEL_DATA ? catalog.bee.core.download({ start: 0, end: -1 }) : null

  const repeater = new Repeater({
    store, swarm, catalog, selection,
    retentionSeconds: config.RETENTION_SECONDS,
    maxDiskBytes: config.MAX_DISK_MB * 1024 * 1024,
    mirrorsFile: paths.mirrors,
    log
  })
  await repeater.start()
  const assets = config.ASSETS ? new AssetsMirror(store, catalog, log) : null
  assets?.start()

  const health = () => {
    const s = repeater.stats()
    return {
      ok: true,
      uptimeSec: Math.floor((Date.now() - startedAt) / 1000),
      publicKey,
      panelKey: config.PANEL_PUBKEY,
      catalogLength: catalog.bee.core.length,
      // PANEL_DATA: the catalog core held whole (contiguous to its length).
      panelData: config.PANEL_DATA ? { length: catalog.bee.core.length, held: catalog.bee.core.contiguousLength } : null,
      assets: assets?.stats() ?? null,
      channels: describeSelection(selection),
      mirrors: s.mirrors,
      catalogUpdates: s.updates,
      diskUsedBytes: s.bytesHeld,
      diskBudgetBytes: s.maxDiskBytes,
      overBudget: s.overBudget,
      swarmConnections: swarm.connections.size
    }
  }
  let status: { app: FastifyInstance; url: string } | null = null
  if (config.STATUS_PORT !== 0) status = await listenStatusServer(config.STATUS_PORT, health, createRepeaterMetrics(repeater, swarm))
  log.info({ event: 'repeater.ready', publicKey, statusUrl: status?.url ?? null, channels: describeSelection(selection), panelData: config.PANEL_DATA, assets: config.ASSETS, announce: config.ANNOUNCE }, 'repeater ready')

  return {
    repeater,
    publicKey,
    statusUrl: status?.url ?? null,
    log,
    async close () {
      clearInterval(lookupTimer)
      await status?.app.close()
      panelData?.destroy()
      await assets?.close()
      await repeater.close()
      await swarm.destroy().catch(() => {})
      await catalog.close().catch(() => {})
      await store.close().catch(() => {})
    }
  }
}

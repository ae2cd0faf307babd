import type { FastifyInstance } from 'fastify'
import { fromHex } from '@arus/crypto'
import { createPanelLink } from '@arus/publisher'
import { childPrefix, controlSettings, ensurePrivateDir, listenControlServer, loadSigningKey, swarmSettings, type Logger } from '@arus/service'
import { createStore, createSwarm, parseBootstrap, tuneSocketBuffers } from '@arus/swarm'
import { libraryActivity, libraryAdmins } from './audit.js'
import type { LibraryConfig } from './config.js'
import { buildLibraryServer } from './http/server.js'
import { createLibraryMetrics } from './metrics.js'
import { libraryPaths } from './paths.js'
import { librarySnapshots, libraryWriter } from './snapshots.js'
import { healthExtras, serviceStatus } from './status.js'
import { Library } from './titles/library.js'
import { openTitleStore } from './titles/store.js'

/** How often every title's registration is re-sent (unchanged: the panel writes nothing). */
const REGISTER_HEARTBEAT_MS = 60_000

/** A running library; `close` tears down in reverse order. */
export interface RunningLibrary {
  library: Library
  control: FastifyInstance | null
  controlUrl: string | null
  log: Logger
  close(): Promise<void>
}

/** The library's composition root. */
export async function main (config: LibraryConfig, log: Logger): Promise<RunningLibrary> {
  const startedAt = Date.now()
  const paths = libraryPaths(config.DATA_DIR)
  await ensurePrivateDir(config.DATA_DIR)
  await ensurePrivateDir(paths.privateDir)
  const titles = await openTitleStore(paths)
  const store = createStore(paths.store)
  await store.ready()
  const swarm = createSwarm({ ...swarmSettings(config), bootstrap: parseBootstrap(config.BOOTSTRAP) })
  tuneSocketBuffers(swarm, { recvBufferBytes: config.SWARM_RCVBUF_MB << 20, sendBufferBytes: config.SWARM_SNDBUF_MB << 20 })
    .catch((err: Error) => log.warn({ event: 'swarm.buffers', err: err.message }, 'socket buffer tuning failed'))
  const link = config.PANEL_PUBKEY && config.PUBLISHER_KEY
    ? createPanelLink({ swarm, log }, { panelKey: fromHex(config.PANEL_PUBKEY, 32), publisherKey: fromHex(config.PUBLISHER_KEY, 64), publisherName: config.PUBLISHER_NAME, heartbeatMs: REGISTER_HEARTBEAT_MS })
    : null
  if (!link) log.warn({ event: 'panel.unconfigured' }, 'PANEL_PUBKEY or PUBLISHER_KEY unset: titles ingest and seed but are not registered')
  swarm.on('connection', (conn) => {
    link?.onConnection(conn)
    store.replicate(conn)
  })
  const activity = libraryActivity(log)
  const library = new Library({ store, swarm, titles, link, log, activity }, {
    scratchDir: paths.scratch, hlsTime: config.HLS_TIME, concurrency: config.INGEST_CONCURRENCY, prefix: childPrefix(config.INGEST_NICE)
  })
  await link?.start()
  await library.start()

  const deps = { library, link, publisherName: config.PUBLISHER_NAME ?? null, panelKey: config.PANEL_PUBKEY ?? null, swarm }
  const snapshots = librarySnapshots(config, paths, { titles, writer: libraryWriter(library), log, activity })
  const settings = controlSettings(config, 'CONTROL')
  const control = settings.enabled
    ? buildLibraryServer({
      log, library, startedAt, settings, snapshots,
      metrics: createLibraryMetrics(library, link),
      status: () => serviceStatus(deps),
      health: () => healthExtras(deps),
      admins: libraryAdmins(paths.admins, settings, { activity, beforeDestructive: (what) => snapshots.beforeDestructive(what) }),
      keys: await loadSigningKey(paths.controlKey)
    })
    : null
  const controlUrl = control ? await listenControlServer(control, { host: settings.host, port: settings.port }) : null
  log.info({ event: 'library.ready', controlUrl, panel: link !== null }, 'library ready')

  return {
    library,
    control,
    controlUrl,
    log,
    async close () {
      await control?.close()
      await library.close()
      await link?.settle(2000)
      await link?.close()
      await swarm.destroy().catch(() => {})
      await store.close().catch(() => {})
    }
  }
}

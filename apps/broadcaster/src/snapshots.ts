import { createConfigSnapshots, type ConfigSnapshots } from '@arus/config-snapshots'
import type { Activity, Logger } from '@arus/service'
import { createStore } from '@arus/swarm'
import type { ChannelManager } from './channels/manager.js'
import type { ChannelStores } from './channels/store.js'
import type { BroadcasterConfig } from './config.js'
import { broadcasterConfigSections, type ChannelWriter } from './config-sections.js'
import { BroadcasterError } from './errors.js'
import type { BroadcasterPaths } from './paths.js'

/** The broadcaster's config snapshots: DATA_DIR/config-snapshots, CONFIG_SNAPSHOT_KEEP, BACKUP_DIR. */
export function broadcasterSnapshots (config: BroadcasterConfig, paths: BroadcasterPaths, parts: { stores: ChannelStores; writer: ChannelWriter; log: Logger; activity: Activity }): ConfigSnapshots {
  return createConfigSnapshots({
    service: 'broadcaster',
    dir: paths.configSnapshots,
    keep: config.CONFIG_SNAPSHOT_KEEP,
    ...(config.BACKUP_DIR ? { backupDir: config.BACKUP_DIR } : {}),
    sections: broadcasterConfigSections(parts.stores, parts.writer),
    log: parts.log,
    activity: parts.activity
  })
}

/** Channel writes of the running daemon: through the manager (ports checked, feed key made, started if asked). */
export function managerWriter (manager: ChannelManager): ChannelWriter {
  const body = (ch: Parameters<ChannelWriter['add']>[0]) => ({
    title: ch.title, category: ch.category, input: ch.input, transcode: ch.transcode, buffer: ch.buffer, hlsTime: ch.hlsTime, hlsListSize: ch.hlsListSize
  })
  return {
    async add (ch, start) {
      await manager.add({ id: ch.id, ...body(ch) })
      if (start) await manager.start(ch.id, { operator: true })
    },
    async patch (ch) { await manager.patch(ch.id, body(ch)) },
    async remove (id) {
      if (manager.get(id).running) return false
      await manager.remove(id)
      return true
    }
  }
}

/**
 * Channel writes of a one-shot CLI command: the files, only while the daemon is stopped (it
 * holds its store lock while it runs; its channels live in its memory). A desired-running
 * channel starts at the daemon's next boot.
 */
export function filesWriter (stores: ChannelStores, storeDir: string): ChannelWriter {
  const assertStopped = () => assertDaemonStopped(storeDir)
  return {
    async add (ch, start) {
      await assertStopped()
      await stores.channels.set(ch.id, { ...ch, desiredRunning: start, updatedAt: Date.now() })
    },
    async patch (ch) {
      await assertStopped()
      await stores.channels.set(ch.id, { ...ch, updatedAt: Date.now() })
    },
    async remove (id) {
      await assertStopped()
      await stores.channels.delete(id)
      return true
    }
  }
}

/**
 * Refuses with BROADCASTER_ELOCKED while a broadcaster runs on this data directory (it holds
 * its Corestore's lock): a one-shot command must not write what the daemon holds in memory.
 */
export async function assertDaemonStopped (storeDir: string): Promise<void> {
  const store = createStore(storeDir)
  try {
    await store.ready()
  } catch (err) {
    if (/lock/i.test((err as Error).message)) throw new BroadcasterError('BROADCASTER_ELOCKED')
    throw err
  } finally {
    await store.close().catch(() => {})
  }
}

import { createConfigSnapshots, type ConfigSnapshots } from '@arus/config-snapshots'
import type { Activity, Logger } from '@arus/service'
import { createStore } from '@arus/swarm'
import type { LibraryConfig } from './config.js'
import { libraryConfigSections, type TitleWriter } from './config-sections.js'
import { LibraryError } from './errors.js'
import type { LibraryPaths } from './paths.js'
import type { Library } from './titles/library.js'
import type { TitleStore } from './titles/store.js'

/** The library's config snapshots: DATA_DIR/config-snapshots, CONFIG_SNAPSHOT_KEEP, BACKUP_DIR. */
export function librarySnapshots (config: LibraryConfig, paths: LibraryPaths, parts: { titles: TitleStore; writer: TitleWriter; log: Logger; activity: Activity }): ConfigSnapshots {
  return createConfigSnapshots({
    service: 'library',
    dir: paths.configSnapshots,
    keep: config.CONFIG_SNAPSHOT_KEEP,
    ...(config.BACKUP_DIR ? { backupDir: config.BACKUP_DIR } : {}),
    sections: libraryConfigSections(parts.titles, parts.writer),
    log: parts.log,
    activity: parts.activity
  })
}

/** Restores in the running daemon go through the library: added titles queue, changed ones apply at their next ingest. */
export function libraryWriter (library: Library): TitleWriter {
  return {
    async add (id, s) { await library.add({ id, input: s.input, title: s.title, description: s.description, category: s.category, ...(s.protection !== null ? { protection: s.protection } : {}), mode: s.mode, hlsTime: s.hlsTime }) },
    async patch (id, s) { await library.patch(id, s) },
    async requeue (id) { await library.reingest(id) },
    async remove (id) {
      try {
        await library.remove(id)
        return true
      } catch (err) {
        if ((err as { code?: unknown }).code === 'LIBRARY_INGESTING') return false
        throw err
      }
    }
  }
}

/**
 * A one-shot CLI command's writer: the running library holds its store and its titles in
 * memory, so a writing restore is refused with LIBRARY_ELOCKED while it runs (snapshots and
 * plans work beside it). Stopped, restored titles are written queued and ingest at the next boot.
 */
export function filesWriter (titles: TitleStore, storeDir: string): TitleWriter {
  const assertStopped = async () => {
    const store = createStore(storeDir)
    try {
      await store.ready()
    } catch (err) {
      if (/lock/i.test((err as Error).message)) throw new LibraryError('LIBRARY_ELOCKED')
      throw err
    } finally {
      await store.close().catch(() => {})
    }
  }
  return {
    async add (id, s) {
      await assertStopped()
      await titles.put({ id, ...s, state: 'queued', error: null, generation: 0, feedKey: null, feedGeneration: null, durationSec: null, segments: 0, bytes: 0, createdAt: Date.now(), readyAt: null })
    },
    async patch (id, s) {
      await assertStopped()
      const rec = titles.get(id)
      if (rec) await titles.put({ ...rec, ...s })
    },
    async requeue (id) {
      await assertStopped()
      const rec = titles.get(id)
      if (rec) await titles.put({ ...rec, state: 'queued', error: null })
    },
    async remove () {
      // Deleting a title purges its feed, which only the daemon does.
      throw new LibraryError('LIBRARY_ELOCKED', 'removing titles in a restore needs the running library (use the control API)')
    }
  }
}

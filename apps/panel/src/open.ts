import Corestore from 'corestore'
import Hyperdrive from 'hyperdrive'
import { createCatalogWriter, openCatalogReader, type CatalogReader } from '@arus/catalog'
import { KEY_SCHEDULE_CURRENT, toHex } from '@arus/crypto'
import type { Activity, Logger } from '@arus/service'
import { panelAdmins, panelSnapshots } from './audit.js'
import type { PanelContext, PanelCore, PanelSettings } from './context.js'
import { PanelError } from './errors.js'
import { loadIdentity } from './identity.js'
import { panelPaths } from './paths.js'
import { openRegistries, type PanelRegistries } from './registries.js'

/** An opened panel: the context operations run against, plus what must be closed. */
export interface OpenPanel { ctx: PanelContext; store: Corestore; close(): Promise<void> }

/** Opens the store; another process holding it is reported as ELOCKED (spec 1 "What the service does" 7). */
export async function openStore (dir: string): Promise<Corestore> {
  const store = new Corestore(dir)
  try {
    await store.ready()
    return store
  } catch (err) {
    await store.close().catch(() => {})
    if (/lock/i.test((err as Error).message)) throw new PanelError('PANEL_ELOCKED')
    throw err
  }
}

/** Opens the store and builds the context; `activity` is the daemon's audit sink (one-shot commands pass a fresh one). */
export async function openPanel (dataDir: string, settings: PanelSettings, components: { log: Logger; activity: Activity }): Promise<OpenPanel> {
  const { log, activity } = components
  const paths = panelPaths(dataDir)
  const identity = await loadIdentity(paths)
  const store = await openStore(paths.store)
  try {
    const catalog = createCatalogWriter({ store, keyPair: { publicKey: identity.publicKey, secretKey: identity.secretKey } })
    await catalog.ready()
    const assets = new Hyperdrive(store.namespace('assets'))
    await assets.ready()
    const meta = await catalog.getMeta('panel')
    // keySchedule tells viewers this panel takes a re-key to schedule 2 at login (issue 40): one
    // write the first time an older panel's data directory opens, none after.
    const wanted = { v: 1 as const, assetsKey: toHex(assets.key), serviceName: settings.serviceName, keySchedule: KEY_SCHEDULE_CURRENT }
    if (!meta || meta.assetsKey !== wanted.assetsKey || meta.serviceName !== wanted.serviceName || meta.keySchedule !== wanted.keySchedule) await catalog.putMeta('panel', wanted)
    const core: PanelCore = { paths, settings, identity, catalog, registries: openRegistries(paths), assets, log, activity, now: Date.now }
    const snapshots = panelSnapshots(core)
    const admins = panelAdmins(paths, settings, { activity, beforeDestructive: (what) => snapshots.beforeDestructive(what) })
    const ctx: PanelContext = { ...core, admins, snapshots }
    return {
      ctx,
      store,
      async close () {
        await assets.close().catch(() => {})
        await catalog.close().catch(() => {})
        await store.close()
      }
    }
  } catch (err) {
    await store.close().catch(() => {})
    throw err
  }
}

/** A read-only look at a panel's data: the catalog as stored, and the private registries. */
export interface PanelReadView { catalog: CatalogReader; registries: PanelRegistries; close(): Promise<void> }

/**
 * Opens the store read-only, beside the panel that holds it (read-only commands, spec 1 "What
 * the service does" 7): a read-only store takes no lock and writes nothing; it sees the catalog
 * as the running panel last wrote it, verified against the panel key like any reader.
 */
export async function openPanelReadView (dataDir: string): Promise<PanelReadView> {
  const paths = panelPaths(dataDir)
  const identity = await loadIdentity(paths)
  const store = new Corestore(paths.store, { readOnly: true })
  try {
    await store.ready()
    const catalog = openCatalogReader({ store, panelPublicKey: identity.publicKey })
    await catalog.ready()
    return {
      catalog,
      registries: openRegistries(paths),
      async close () {
        await catalog.close().catch(() => {})
        await store.close()
      }
    }
  } catch (err) {
    await store.close().catch(() => {})
    throw err
  }
}
